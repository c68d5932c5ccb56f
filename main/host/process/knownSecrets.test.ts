/** Which settings hold secrets, by name and by value. */
import { describe, expect, it } from 'vitest';
import { agentSecrets, isSecretName } from './knownSecrets.js';

describe('known secrets', () => {
  it('tells secret names by whole words', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GITHUB_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASS',
      'DB_PWD',
      'SMTP_PASSWORD',
      'DATABASE_URL',
      'SENTRY_DSN',
      'apiKey',
      'ANTHROPIC_AUTH_TOKEN',
    ]) {
      expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: true });
    }
    for (const name of ['GIT_AUTHOR_NAME', 'PATH', 'HOME', 'KEYBOARD_LAYOUT', 'PASSAGE_DIR', 'TOKENIZERS_PARALLELISM', 'PWD', 'OLDPWD']) {
      expect({ name, secret: isSecretName(name) }).toEqual({ name, secret: false });
    }
  });

  it('collects the values of the environment and of agents, and any URL with a password', () => {
    const values = agentSecrets(
      { DB_PASS: 'hunter2hunter2', GIT_AUTHOR_NAME: 'Ada Lovelace', UPSTREAM: 'https://bot:s3cretpass@git.example/x', PATH: '/usr/bin' },
      [{ env: { CUSTOM_API_KEY: 'custom-agent-key-1' } }],
    );
    expect(values.sort()).toEqual(['custom-agent-key-1', 'https://bot:s3cretpass@git.example/x', 'hunter2hunter2']);
  });

  it("keeps the shell's working folder out: the host's start folder is not a secret", () => {
    const values = agentSecrets({ PWD: '/home/someone/projects/baton', OLDPWD: '/home/someone/projects', DB_PWD: 'db-password-123' }, []);
    expect(values).toEqual(['db-password-123']);
  });
});
