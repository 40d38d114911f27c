/**
 * Passwords of the web sign-in: argon2id (the @node-rs/argon2 defaults are OWASP's
 * recommendation: 19 MiB, 2 passes, 1 lane). Only the encoded hash is stored, in
 * `users.password_hash`.
 */
import { hash, verify } from '@node-rs/argon2';
import type { Knex } from 'knex';
import { invalid } from '../../core/errors.js';
import { endSessionsOf } from './sessions.js';

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

/** A hash to verify against when the email is unknown, so both answers take as long. */
let decoy: Promise<string> | undefined;

/** The argon2id hash of a password, as a PHC string ($argon2id$v=19$...). */
export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

/** True when `password` matches `stored`; false for a missing hash (the account has no password). */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    await verify(await (decoy ??= hash('listkeeper decoy password')), password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}

/** The reason a new password is refused, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (password.length > MAX_PASSWORD_LENGTH) return `Choose a password of at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

/** Sets (or replaces) the web sign-in password of a person; refuses a weak one. */
export async function setUserPassword(db: Knex, userId: string, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw invalid(problem, 'password');
  await db('users')
    .where({ id: userId })
    .update({ password_hash: await hashPassword(password) });
  // Other browsers signed in with the old password are signed out.
  await endSessionsOf(db, userId);
}

/** Why a password change was refused: the current password did not match, or the new one is not allowed. */
export interface PasswordRefusal {
  reason: 'wrong-current' | 'unfit';
  message: string;
}

/**
 * The person changes their own password: the current one must match and the new one pass
 * passwordProblem. Returns the refusal, or null once changed (every web session ended, as
 * setUserPassword does).
 */
export async function changePassword(db: Knex, userId: string, current: string, next: string): Promise<PasswordRefusal | null> {
  const row = (await db('users').where({ id: userId }).first('password_hash')) as { password_hash: string | null } | undefined;
  if (!(await verifyPassword(row?.password_hash, current))) return { reason: 'wrong-current', message: 'Your current password is not the one you entered.' };
  const problem = passwordProblem(next) ?? (next === current ? 'Choose a new password that differs from the current one.' : null);
  if (problem) return { reason: 'unfit', message: problem };
  await setUserPassword(db, userId, next);
  return null;
}
