import { describe, it, expect } from '@jest/globals';
import { useTestServer } from '../support/server.js';
import { call } from '../../src/operations/dispatch.js';
import { dropChannel, readSettings } from '../../src/domain/notifications/settings.js';

describe('set_notification_settings', () => {
  const { server, ada } = useTestServer({ env: { SMTP_URL: 'smtp://127.0.0.1:2525' } });
  const set = (input: Parameters<typeof call<'set_notification_settings'>>[2]) => call(server.personContext(ada), 'set_notification_settings', input);

  it('changes only the fields sent, and answers the settings as saved', async () => {
    expect(await set({ emailOn: true, quietStart: '22:00', quietEnd: '07:00' })).toEqual({
      pushOn: false,
      emailOn: true,
      emailAddress: null,
      emailReminders: true,
      emailQuestions: true,
      topicOn: false,
      topicUrl: null,
      quietStart: '22:00',
      quietEnd: '07:00',
      notes: { push: null, email: null, topic: null },
    });
    expect(await set({ emailAddress: ' me@example.org ', emailQuestions: false, topicUrl: 'https://1.1.1.1/ada-tasks', topicOn: true })).toMatchObject({
      emailOn: true,
      emailAddress: 'me@example.org',
      emailReminders: true,
      emailQuestions: false,
      topicOn: true,
      topicUrl: 'https://1.1.1.1/ada-tasks',
      quietStart: '22:00',
    });
    expect(await set({ quietStart: '', quietEnd: '', emailAddress: '' })).toMatchObject({ quietStart: null, quietEnd: null, emailAddress: null });
  });

  it('refuses an address that is none, a topic that is not https and public, and half quiet hours', async () => {
    await expect(set({ emailAddress: 'not an address' })).rejects.toMatchObject({ status: 400, extra: { field: 'emailAddress' } });
    await expect(set({ topicUrl: 'http://ntfy.sh/x' })).rejects.toMatchObject({ status: 400, message: 'topicUrl must be https; received http.' });
    await expect(set({ topicUrl: 'https://127.0.0.1/x' })).rejects.toMatchObject({ status: 400, extra: { field: 'topicUrl' } });
    await expect(set({ quietStart: '22:00' })).rejects.toMatchObject({ status: 400, extra: { field: 'quietEnd' } });
    await expect(set({ quietStart: '25:00', quietEnd: '07:00' })).rejects.toMatchObject({ status: 400, extra: { field: 'quietStart' } });
    await expect(set({ topicUrl: '', topicOn: true })).rejects.toMatchObject({ status: 400, extra: { field: 'topicUrl' } });
  });

  it('clears the note of a dropped channel when it is turned on again', async () => {
    await set({ emailOn: true });
    await dropChannel(server.db, ada.userId, 'email', ada.email, 'Mail to ada was refused for good.');
    expect(await readSettings(server.db, ada.userId)).toMatchObject({ emailOn: false, notes: { email: 'Mail to ada was refused for good.' } });
    expect(await set({ emailOn: true })).toMatchObject({ emailOn: true, notes: { email: null } });
  });
});

describe('set_notification_settings without a mail server', () => {
  const { server, ada } = useTestServer();

  it('refuses to turn email on (409), and leaves the rest as it was', async () => {
    await expect(call(server.personContext(ada), 'set_notification_settings', { emailOn: true, pushOn: true })).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('SMTP_URL'),
    });
    expect(await readSettings(server.db, ada.userId)).toMatchObject({ emailOn: false, pushOn: false });
  });
});
