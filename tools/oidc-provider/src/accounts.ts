/** Dev accounts of the local OIDC provider: never use these outside a laptop or a test. */
export interface DevAccount {
  login: string;
  password: string;
  /** The OIDC `sub`: what the gateway links and what signatures name as `x-ori-invoke-user`. */
  sub: string;
  email: string;
  name: string;
}

export const DEV_ACCOUNTS: readonly DevAccount[] = [
  { login: 'demo', password: 'demo-password', sub: 'demo-user', email: 'demo@example.com', name: 'Demo User' },
  { login: 'alice', password: 'alice-password', sub: 'alice', email: 'alice@example.com', name: 'Alice Example' },
  { login: 'bob', password: 'bob-password', sub: 'bob', email: 'bob@example.com', name: 'Bob Example' },
  { login: 'dana', password: 'dana-password', sub: 'dana', email: 'dana@example.com', name: 'Dana Example' },
  { login: 'carol', password: 'carol-password', sub: 'carol', email: 'carol@example.com', name: 'Carol Example' },
  // A member (not an owner) of another's workspace in the console's browser test.
  { login: 'erin', password: 'erin-password', sub: 'erin', email: 'erin@example.com', name: 'Erin Example' },
];

/** The account these credentials name, or undefined. */
export function authenticate(login: string, password: string): DevAccount | undefined {
  return DEV_ACCOUNTS.find((account) => account.login === login && account.password === password);
}

export const findAccountBySub = (sub: string) => DEV_ACCOUNTS.find((account) => account.sub === sub);
