import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: './data',
      publicBaseUrl: 'http://127.0.0.1:3000',
      imageHost: 'local',
      cookieSecure: false,
      logLevel: 'info',
      bodyLimit: 1024 * 1024,
      loginMaxFailuresPerAccount: 10,
      loginMaxFailuresPerIp: 100,
      loginWindowMinutes: 15,
      registerMaxPerIpPerHour: 30,
      tokensMaxPerUserPerHour: 30,
      invitationsMaxPerUserPerHour: 30,
      invitationMaxFailuresPerIp: 20,
      changesRetentionDays: 90,
      everyonePremium: false,
    });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.apiRateLimit).toBeUndefined();
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/loreforge',
      DATABASE_URL: 'postgres://u:p@db/loreforge',
      PUBLIC_BASE_URL: 'https://lore.example.com/',
      COOKIE_SECURE: 'true',
      LOG_LEVEL: 'warn',
      API_RATE_LIMIT: '600',
      EVERYONE_PREMIUM: 'true',
    });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/var/lib/loreforge',
      databaseUrl: 'postgres://u:p@db/loreforge',
      publicBaseUrl: 'https://lore.example.com',
      cookieSecure: true,
      logLevel: 'warn',
      apiRateLimit: 600,
      everyonePremium: true,
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['PUBLIC_BASE_URL', 'ftp://x'],
    ['COOKIE_SECURE', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['IMAGE_HOST', 'ftp'],
    ['BODY_LIMIT', '-1'],
    ['API_RATE_LIMIT', '0'],
    ['SESSION_DAYS', '1.5'],
    ['EVERYONE_PREMIUM', 'sure'],
  ])('stops on a bad %s with a one-line message naming it', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain(name);
    expect(message).not.toContain('\n');
  });
});

describe('import budgets (CONTRACT "Hostile input")', () => {
  it('default to 2 GiB expanded and 2 imports at once, and read both', () => {
    expect(loadConfig({})).toMatchObject({ importMaxExpandedBytes: 2 * 1024 * 1024 * 1024, importsMaxConcurrent: 2 });
    expect(loadConfig({ IMPORT_MAX_EXPANDED_BYTES: '1048576', IMPORTS_MAX_CONCURRENT: '4' })).toMatchObject({ importMaxExpandedBytes: 1024 * 1024, importsMaxConcurrent: 4 });
  });

  it.each([
    ['IMPORT_MAX_EXPANDED_BYTES', 'lots'],
    ['IMPORT_MAX_EXPANDED_BYTES', '0'],
    ['IMPORTS_MAX_CONCURRENT', '0'],
    ['IMPORTS_MAX_CONCURRENT', '-1'],
  ])('refuses %s=%s at start, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
