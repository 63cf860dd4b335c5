import { describe, expect, it } from 'vitest';
import { tokenPage, wantsTokenPage } from '../../../proxy/app/serve/token-page.js';

const page = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('wantsTokenPage', () => {
  it('is a page load only: GET, asking for HTML, outside the API and the sockets', () => {
    expect(wantsTokenPage('GET', '/', { accept: page })).toBe(true);
    expect(wantsTokenPage('GET', '/?token=old', { accept: page })).toBe(true);
    expect(wantsTokenPage('GET', '/sessions/s1', { accept: page })).toBe(true);
    expect(wantsTokenPage('POST', '/', { accept: page })).toBe(false);
    expect(wantsTokenPage('GET', '/api/sessions', { accept: page })).toBe(false);
    expect(wantsTokenPage('GET', '/ws', { accept: page })).toBe(false);
    expect(wantsTokenPage('GET', '/', { accept: 'application/json' })).toBe(false);
    expect(wantsTokenPage('GET', '/', {})).toBe(false);
  });
});

describe('tokenPage', () => {
  it('names the discovery file, escaped, and says when the token given was wrong', () => {
    const html = tokenPage({ port: 6480, discoveryFile: '/home/a&b/<x>/ui-6480.json', wrongToken: true });
    expect(html).toContain('/home/a&#38;b/&#60;x&#62;/ui-6480.json');
    expect(html).not.toContain('<x>');
    expect(html).toContain('not this UI’s');
    expect(html).not.toContain('<script');
    const plain = tokenPage({ port: 6480, wrongToken: false });
    expect(plain).not.toContain('ui-6480.json');
    expect(plain).not.toContain('not this UI’s');
    expect(plain).toContain('<form method="get" action="/">');
  });
});
