/**
 * Activity at /activity: the changes agents, apps, the API key and automations made in the
 * person's workspace, and the person's own, newest first, each with who, what and when (in
 * the person's time zone) and a link to the item or list while it exists. A filter keeps only
 * what others did; "Older" pages back. The read is domain/changes/activity.ts's activityPage.
 */
import type { Context } from 'koa';
import type Router from '@koa/router';
import { timeZoneOf } from '../domain/accounts/accounts.js';
import { activityPage, type ActivityAuthor, type ActivityLine } from '../domain/changes/activity.js';
import { Html, html } from './html.js';
import { formatTime } from './format.js';
import type { PageKit } from './page-kit.js';

export const ACTIVITY_PATH = '/activity';

/** The filter's query value that keeps only what agents and apps did. */
const ONLY_OTHERS = 'agents';

export function registerActivity(router: Router, kit: PageKit): void {
  const { db } = kit.deps;

  router.get(ACTIVITY_PATH, async (ctx: Context) => {
    const user = await kit.signedIn(ctx);
    if (!user) return;
    const onlyOthers = ctx.query.only === ONLY_OTHERS;
    const before = typeof ctx.query.before === 'string' ? ctx.query.before : null;
    const [{ lines, older }, timezone] = await Promise.all([activityPage(db, user.id, { onlyOthers, before }), timeZoneOf(db, user.id)]);
    const filter = (only: boolean) => (only ? `?only=${ONLY_OTHERS}` : '');
    const filterLink = (only: boolean, label: string) =>
      html`<a href="${ACTIVITY_PATH}${filter(only)}"${only === onlyOthers ? new Html(' aria-current="true"') : ''}>${label}</a>`;
    const paging = html`${before ? html`<a href="${ACTIVITY_PATH}${filter(onlyOthers)}">Newest</a>` : ''}${
      older ? html`<a href="${ACTIVITY_PATH}?${onlyOthers ? `only=${ONLY_OTHERS}&` : ''}before=${older}" rel="next">Older</a>` : ''
    }`;
    const empty = before ? 'Nothing older.' : onlyOthers ? 'No agent or app has changed anything yet.' : 'Nothing has changed yet.';
    kit.show(
      ctx,
      user,
      'Activity',
      html`<nav class="activity-filter" aria-label="Show">${filterLink(false, 'Everything')}${filterLink(true, 'Only agents and apps')}</nav>
<div class="card">${lines.length ? html`<ol class="activity">${lines.map((line) => entry(line, timezone))}</ol>` : html`<p class="muted">${empty}</p>`}</div>
${before || older ? html`<nav class="paging" aria-label="Pages">${paging}</nav>` : ''}`,
      { section: 'activity' },
    );
  });
}

function entry(line: ActivityLine, timezone: string): Html {
  const link = line.itemId
    ? html` <a href="/artifacts/${line.itemId}">Open the item</a>`
    : line.listId
      ? html` <a href="/lists/${line.listId}">Open the list</a>`
      : '';
  return html`<li class="${line.author.kind === 'person' ? 'own' : 'other'}"><span class="who">${who(line.author)}</span> <span class="what">${line.summary}</span>${link} <time class="muted" datetime="${line.at.toISOString()}">${formatTime(line.at, timezone)}</time></li>`;
}

function who(author: ActivityAuthor): string {
  switch (author.kind) {
    case 'person':
      return 'You';
    case 'apiKey':
      return 'Your API key';
    case 'app':
      return author.name;
    case 'automation':
      // Stored as the service wrote it ("automation 'Weekly review'").
      return author.name.charAt(0).toUpperCase() + author.name.slice(1);
  }
}
