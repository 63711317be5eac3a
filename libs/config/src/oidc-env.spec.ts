import { IsInt, Max, Min } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { IsOidcVariable, oidcSettingsOf } from './oidc-env.js';
import { InvalidEnvironmentError, validateEnv } from './validate-env.js';

class Env {
  @IsOidcVariable('OIDC_ISSUER_URL')
  OIDC_ISSUER_URL?: string;
  @IsOidcVariable('OIDC_CLIENT_ID')
  OIDC_CLIENT_ID?: string;
  @IsOidcVariable('OIDC_CLIENT_SECRET')
  OIDC_CLIENT_SECRET?: string;
  @IsOidcVariable('OIDC_REDIRECT_URL')
  OIDC_REDIRECT_URL?: string;
  @IsInt()
  @Min(60)
  @Max(3600)
  OIDC_LOGIN_TTL_SECONDS = 600;
}

const complete = {
  OIDC_ISSUER_URL: 'https://accounts.example.com',
  OIDC_CLIENT_ID: 'gateway',
  OIDC_CLIENT_SECRET: 'very-secret',
  OIDC_REDIRECT_URL: 'https://llm.example.com/v1/identity/oidc/callback',
};

function problems(env: Record<string, string>): string[] {
  try {
    validateEnv(Env, env);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidEnvironmentError);
    return (error as InvalidEnvironmentError).problems;
  }
}

describe('OIDC client settings', () => {
  it('none set: identity linking is off', () => {
    expect(problems({})).toEqual([]);
    expect(oidcSettingsOf(validateEnv(Env, {}))).toBeNull();
  });

  it('all four set: validated settings', () => {
    const settings = oidcSettingsOf(validateEnv(Env, complete))!;
    expect(settings.issuerUrl.href).toBe('https://accounts.example.com/');
    expect(settings).toMatchObject({ clientId: 'gateway', clientSecret: 'very-secret', insecure: false, loginTtlSeconds: 600 });
  });

  it('half a configuration fails at start, naming what is missing and never the secret', () => {
    const found = problems({ OIDC_ISSUER_URL: complete.OIDC_ISSUER_URL, OIDC_CLIENT_SECRET: 'very-secret' });
    expect(found.join('\n')).toMatch(/OIDC_CLIENT_ID: set all of/);
    expect(found.join('\n')).toMatch(/OIDC_REDIRECT_URL: set all of/);
    expect(found.join('\n')).not.toMatch(/very-secret/);
  });

  it('https only, except on a loopback host', () => {
    expect(problems({ ...complete, OIDC_ISSUER_URL: 'http://accounts.example.com' }).join()).toMatch(/OIDC_ISSUER_URL: must be https/);
    expect(problems({ ...complete, OIDC_REDIRECT_URL: 'not a url' }).join()).toMatch(/OIDC_REDIRECT_URL: must be an absolute URL/);
    expect(problems({ ...complete, OIDC_ISSUER_URL: 'https://a.example.com/?x=1' }).join()).toMatch(/no query/);
    const local = oidcSettingsOf(
      validateEnv(Env, {
        ...complete,
        OIDC_ISSUER_URL: 'http://127.0.0.1:8791',
        OIDC_REDIRECT_URL: 'http://localhost:8080/v1/identity/oidc/callback',
      }),
    )!;
    expect(local.insecure).toBe(true);
  });
});
