/**
 * The choices of a grant on a form, shared by the consent page and Settings → Connections:
 * read only, no deletes or everything, and every list or chosen ones ("and lists I make
 * later"), in plain words. The consent page offers nothing beyond what the app asked for.
 * @see docs/auth.md "Grants"
 */
import type { Grant } from '../core/context.js';
import type { GrantLevel } from '../core/operation-spec.js';
import { grantInWords } from '../domain/accounts/grants.js';
import { html, type Html } from './html.js';

const LEVELS: { level: GrantLevel; label: string }[] = [
  { level: 'read', label: 'Read only: read your lists and items, change nothing' },
  { level: 'write', label: 'Read and change, but delete nothing' },
  { level: 'delete', label: 'Read, change and delete, as you can' },
];

interface ListChoice {
  id: string;
  name: string;
}

/**
 * The fieldsets: `preset` is checked (absent: everything); `cap` hides the levels above what
 * the app asked for; `held`, on a step-up, says what the app may already do and what it adds.
 */
export function grantChoices(opts: { lists: ListChoice[]; preset: Grant | undefined; cap?: Grant | undefined; held?: { grant: Grant | undefined } }): Html {
  const { lists, preset, cap, held } = opts;
  const name = (id: string) => lists.find((l) => l.id === id)?.name ?? 'a list you no longer have';
  const capIndex = LEVELS.findIndex((l) => l.level === (cap?.level ?? 'delete'));
  const levels = LEVELS.slice(0, capIndex + 1);
  const checkedLevel = preset?.level ?? 'delete';
  const offered = cap?.lists ? lists.filter((l) => cap.lists!.includes(l.id)) : lists;
  const chosen = preset?.lists ?? null;
  const step = held
    ? html`<p>It may already: ${grantInWords(held.grant, name).join(' ')}</p>
<p><strong>It asks to also:</strong> ${addedInWords(held.grant, cap, name)}</p>`
    : html`<p>It asks to: ${grantInWords(cap, name).join(' ')}</p>`;
  return html`${step}
<fieldset class="grant"><legend>What it may do</legend>
${levels.map(
  (l) => html`<label><input type="radio" name="access" value="${l.level}"${l.level === checkedLevel ? html` checked` : html``}> ${l.label}</label><br>`,
)}
</fieldset>
<fieldset class="grant"><legend>Which lists</legend>
${cap?.lists ? html`` : html`<label><input type="radio" name="reach" value="all"${chosen ? html`` : html` checked`}> Every list</label><br>`}
<label><input type="radio" name="reach" value="some"${chosen || cap?.lists ? html` checked` : html``}> Only the lists ticked here:</label><br>
${offered.map(
  (l) =>
    html`<label class="indent"><input type="checkbox" name="list-${l.id}" value="on"${!chosen || chosen.includes(l.id) ? html` checked` : html``}> ${l.name}</label><br>`,
)}
<label class="indent"><input type="checkbox" name="later" value="on"${preset?.later || (!cap?.lists && !chosen) ? html` checked` : html``}> and lists I make later</label>
</fieldset>`;
}

/** What a step-up adds to the grant held, in words. */
function addedInWords(held: Grant | undefined, asked: Grant | undefined, name: (id: string) => string): string {
  const parts: string[] = [];
  const order: GrantLevel[] = ['read', 'write', 'delete'];
  const from = order.indexOf(held?.level ?? 'delete');
  const to = order.indexOf(asked?.level ?? 'delete');
  if (to > from) parts.push(asked?.level === 'write' || (to === 2 && from === 0) ? 'add and change items and lists' : '');
  if (to === 2 && from < 2) parts.push('delete');
  const newLists = held?.lists ? (asked?.lists ?? null) : null;
  if (held?.lists && !asked?.lists) parts.push('reach every list');
  else if (newLists) {
    const more = newLists.filter((id) => !held!.lists!.includes(id)).map(name);
    if (more.length > 0) parts.push(`reach ${more.join(', ')}`);
  }
  if (asked?.later && !held?.later) parts.push('reach the lists you make later');
  return `${parts.filter(Boolean).join('; ') || 'nothing more'}.`;
}

/** The grant a submitted form chose (levels and lists; the caller narrows it to what was asked). */
export function chosenGrant(form: Record<string, string>): { level: GrantLevel; lists: string[] | null; later: boolean } {
  // No choice sent (a form of before grants): what the app asked for, which the caller caps.
  const level = LEVELS.find((l) => l.level === form.access)?.level ?? 'delete';
  const lists =
    form.reach === 'some'
      ? Object.keys(form)
          .filter((k) => k.startsWith('list-') && form[k] === 'on')
          .map((k) => k.slice('list-'.length))
      : null;
  return { level, lists, later: form.later === 'on' };
}
