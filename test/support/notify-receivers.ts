/**
 * Real receivers for the notification suites, on 127.0.0.1: a browser's push subscription with
 * its push service (the payload decrypted with http_ece, the library web push's encryption
 * comes from, in its own copy; the VAPID signature checked with jose), an SMTP inbox
 * (smtp-server, each message parsed with mailparser), and an HTTP topic. Each answers as the
 * test scripts it and counts what it received.
 */
import { createECDH, randomBytes } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import ece from 'http_ece';
import { importJWK, jwtVerify } from 'jose';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { startLocalServer } from './net.js';

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

export interface PushMessage {
  title: string;
  body: string;
  url: string;
  tag: string;
}

export interface PushReceiver {
  /** What a browser's PushManager.subscribe() gives the page: the endpoint and its keys. */
  subscription: { endpoint: string; keys: { p256dh: string; auth: string } };
  /** Decrypted messages, in arrival order. */
  received: PushMessage[];
  /** The status the push service answers next (a queue; 201 when empty). */
  answers: number[];
  close(): Promise<void>;
}

/**
 * A browser's subscription and the push service behind its endpoint: it checks the VAPID JWT
 * against the key in the request and the endpoint's origin, and decrypts the aes128gcm body
 * with the subscription's private key and auth secret.
 */
export async function startPushReceiver(vapidPublicKey: () => string): Promise<PushReceiver> {
  const keys = createECDH('prime256v1');
  keys.generateKeys();
  const auth = randomBytes(16);
  const receiver: PushReceiver = { subscription: { endpoint: '', keys: { p256dh: '', auth: '' } }, received: [], answers: [], close: async () => undefined };
  const server = await startLocalServer(async (req, res) => {
    const body = await readBody(req);
    const status = receiver.answers.shift() ?? 201;
    if (status !== 201) return res.writeHead(status).end();
    const [, jwt, k] = /^vapid t=([^,]+),\s*k=(.+)$/.exec(String(req.headers.authorization)) ?? [];
    if (k !== vapidPublicKey()) return res.writeHead(403).end('wrong VAPID key');
    const point = Buffer.from(k, 'base64url');
    const key = await importJWK(
      { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
      'ES256',
    );
    await jwtVerify(jwt!, key, { audience: new URL(receiver.subscription.endpoint).origin });
    if (req.headers['content-encoding'] !== 'aes128gcm') return res.writeHead(415).end();
    const plain = ece.decrypt(body, { version: 'aes128gcm', privateKey: keys, authSecret: auth.toString('base64url') });
    receiver.received.push(JSON.parse(plain.toString('utf8')) as PushMessage);
    res.writeHead(201).end();
  });
  receiver.subscription = {
    endpoint: `${server.url}/push/${randomBytes(8).toString('hex')}`,
    keys: { p256dh: keys.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
  };
  receiver.close = server.close;
  return receiver;
}

export interface Inbox {
  url: string;
  messages: ParsedMail[];
  /** Addresses the server refuses for good (550 at RCPT TO). */
  bounce: Set<string>;
  close(): Promise<void>;
}

/** An SMTP server in the test process (no TLS, no login), keeping each message parsed. */
export async function startInbox(): Promise<Inbox> {
  const inbox: Inbox = { url: '', messages: [], bounce: new Set(), close: async () => undefined };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (inbox.bounce.has(address.address)) return callback(Object.assign(new Error('5.1.1 No such mailbox'), { responseCode: 550 }));
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          inbox.messages.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.server.once('listening', resolve));
  inbox.url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  inbox.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return inbox;
}

export interface TopicMessage {
  title: string;
  click: string;
  tags: string;
  body: string;
}

export interface TopicReceiver {
  url: string;
  received: TopicMessage[];
  /** The status answered next (a queue; 200 when empty). Refused posts are not received. */
  answers: number[];
  close(): Promise<void>;
}

/** An ntfy-style topic: each POST is a message, its title and link in headers. */
export async function startTopic(): Promise<TopicReceiver> {
  const topic: TopicReceiver = { url: '', received: [], answers: [], close: async () => undefined };
  const server = await startLocalServer(async (req, res) => {
    const body = (await readBody(req)).toString('utf8');
    const status = topic.answers.shift() ?? 200;
    if (status === 200) {
      const title = String(req.headers.title ?? '');
      const encoded = /^=\?UTF-8\?B\?(.*)\?=$/.exec(title);
      topic.received.push({
        title: encoded ? Buffer.from(encoded[1]!, 'base64').toString('utf8') : title,
        click: String(req.headers.click ?? ''),
        tags: String(req.headers.tags ?? ''),
        body,
      });
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  topic.url = `${server.url}/listkeeper-ada`;
  topic.close = server.close;
  return topic;
}
