/** Where a person sees an item: the web page and the desktop app. */
import type { Config } from '../../core/config.js';

export function linkRoots(config: Pick<Config, 'webOrigin' | 'appScheme'>): { web: string; app: string } {
  return { web: `${config.webOrigin}/artifacts/{id}`, app: `${config.appScheme}://artifacts/{id}` };
}

export function itemUrls(config: Pick<Config, 'webOrigin' | 'appScheme'>, id: string): { webUrl: string; appUrl: string } {
  return { webUrl: `${config.webOrigin}/artifacts/${id}`, appUrl: `${config.appScheme}://artifacts/${id}` };
}
