/** The provider's own interaction pages: plain HTML forms a browser, or a headless client, submits. */

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 28rem; margin: 4rem auto">
<h1>${escape(title)}</h1>
${body}
</body></html>
`;

export function loginPage(uid: string, problem?: string): string {
  return page(
    'Sign in (local OIDC provider)',
    `${problem ? `<p role="alert">${escape(problem)}</p>` : ''}
<form method="post" action="/interaction/${escape(uid)}/login">
  <label>Login <input name="login" autocomplete="username" autofocus></label>
  <label>Password <input name="password" type="password" autocomplete="current-password"></label>
  <button type="submit">Sign in</button>
</form>
<p>Dev accounts only (tools/oidc-provider/README.md).</p>`,
  );
}

export function consentPage(uid: string, clientId: string, scope: string): string {
  return page(
    'Allow access',
    `<p><b>${escape(clientId)}</b> asks for: ${escape(scope)}</p>
<form method="post" action="/interaction/${escape(uid)}/confirm">
  <button type="submit">Allow</button>
</form>
<form method="post" action="/interaction/${escape(uid)}/abort">
  <button type="submit">Deny</button>
</form>`,
  );
}
