import { describe, expect, it } from 'vitest';
import { failedPage, linkedPage } from './identity-page.js';

describe('identity callback pages', () => {
  it('names the linked subject and issuer, escaped', () => {
    const html = linkedPage({ issuer: 'https://id.example.com', subject: '<script>alert(1)</script>' });
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('https://id.example.com');
  });

  it('says why a login failed, escaped', () => {
    const html = failedPage(400, 'refused: "x" & <y>', 'invalid_state');
    expect(html).toContain('refused: &quot;x&quot; &amp; &lt;y&gt;');
    expect(html).toContain('(400 invalid_state)');
  });
});
