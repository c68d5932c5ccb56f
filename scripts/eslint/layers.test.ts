import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';
import plugin from './layers.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const at = (relative: string): string => path.join(root, relative);

RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: 'module' } });

tester.run('baton/layers', plugin.rules.layers as never, {
  valid: [
    { filename: at('app/transcript/x.ts'), code: "import { z } from 'zod'; import { a } from '../events/index.js';" },
    { filename: at('main/host/x.ts'), code: "import path from 'node:path'; import { b } from '../../app/errors.js';" },
    // The machine floor: processes, watches and files in machine/; the host's own data in store/, log/ and the secret box.
    {
      filename: at('main/host/machine/x.ts'),
      code: "import { spawn } from 'node:child_process'; import { watch, readFileSync } from 'node:fs';",
    },
    { filename: at('main/host/store/x.ts'), code: "import { readFileSync } from 'node:fs';" },
    { filename: at('main/host/log/x.ts'), code: "import { appendFileSync } from 'node:fs';" },
    { filename: at('main/host/toolbox/SecretBox.ts'), code: "import { readFileSync } from 'node:fs';" },
    {
      filename: at('main/host/conversations/x.int.test.ts'),
      code: "import { execFileSync } from 'node:child_process'; import fs from 'node:fs';",
    },
    { filename: at('main/host/conversations/x.ts'), code: "import type { ChildProcess } from 'node:child_process';" },
    { filename: at('main/electron/x.ts'), code: "import { app } from 'electron'; import { Host } from '../host/Host.js';" },
    { filename: at('main/web/x.ts'), code: "import { Host } from '../host/Host.js'; import http from 'node:http';" },
    // The web host and the shell keep their own files, but start no process and watch no folder themselves.
    {
      filename: at('main/web/x.ts'),
      code: "import { readFileSync } from 'node:fs'; import { openInBrowser } from '../host/machine/helperChildren.js';",
    },
    { filename: at('main/electron/x.ts'), code: "import { readFile } from 'node:fs/promises';" },
    { filename: at('renderer/x.tsx'), code: "import { useState } from 'react'; import { reduce } from '../app/transcript/index.js';" },
    { filename: at('e2e/specs/x.ts'), code: "import type { Envelope } from '../../app/events/index.js'; import fs from 'node:fs';" },
    { filename: at('main/host/x.int.test.ts'), code: "import { startModelStub } from '../../e2e/fixtures/modelStub.js';" },
    {
      filename: at('bench/x.ts'),
      code: "import { Host } from '../main/host/Host.js'; import { tempDir } from '../e2e/fixtures/agentEnv.js'; import os from 'node:os';",
    },
    // The host's floors: down at run time, up for types only.
    {
      filename: at('main/host/agents/x.ts'),
      code: "import { leaseFor } from '../pool/leaseFor.js'; import { ownLaunch } from '../binding/ownLaunch.js';",
    },
    {
      filename: at('main/host/pool/x.ts'),
      code: "import type { AgentCatalog } from '../agents/AgentCatalog.js'; import { type AgentAccess } from '../agents/AgentAccess.js';",
    },
    { filename: at('main/host/Host.ts'), code: "import { Turns } from './conversations/Turns.js';" },
  ],
  invalid: [
    {
      filename: at('main/host/conversations/x.ts'),
      code: "import { execFile } from 'node:child_process';",
      errors: [{ messageId: 'forbidden' }],
    },
    // No program of Baton's own is excepted: the MCP launcher starts its server through the machine room too.
    {
      filename: at('main/host/toolbox/mcpLauncher.ts'),
      code: "import { spawn } from 'node:child_process';",
      errors: [{ messageId: 'forbidden' }],
    },
    { filename: at('main/web/cli.ts'), code: "import { spawn } from 'node:child_process';", errors: [{ messageId: 'forbidden' }] },
    {
      filename: at('main/electron/x.ts'),
      code: "import { execFile } from 'node:child_process'; import { watch } from 'node:fs';",
      errors: [{ messageId: 'forbidden' }, { messageId: 'forbidden' }],
    },
    {
      filename: at('main/host/checkpoints/x.ts'),
      code: "import fs from 'node:fs'; fs.watch('.');",
      errors: [{ messageId: 'forbidden' }, { messageId: 'forbidden' }],
    },
    {
      filename: at('main/host/conversations/x.ts'),
      code: "import { readFile } from 'node:fs/promises';",
      errors: [{ messageId: 'forbidden' }],
    },
    { filename: at('main/host/files/x.ts'), code: "const fs = require('node:fs');", errors: [{ messageId: 'forbidden' }] },
    { filename: at('app/x.ts'), code: "import fs from 'node:fs';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('app/x.ts'), code: "import React from 'react';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('app/x.ts'), code: "import { Host } from '../main/host/Host.js';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('app/x.ts'), code: "import left from 'left-pad';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('main/host/x.ts'), code: "import { app } from 'electron';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('main/host/x.ts'), code: "import { api } from '../../renderer/api.js';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('main/web/x.ts'), code: "import '../electron/index.js';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('renderer/x.ts'), code: "import path from 'node:path';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('renderer/x.ts'), code: "const e = require('electron');", errors: [{ messageId: 'forbidden' }] },
    { filename: at('renderer/x.ts'), code: "export * from '../main/host/Host.js';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('e2e/x.ts'), code: "import { reduce } from '../app/transcript/index.js';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('e2e/x.ts'), code: "import { Host } from '../main/host/Host.js';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('bench/x.ts'), code: "import { app } from 'electron';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('bench/x.ts'), code: "import { createServer } from '../main/web/WebServer.js';", errors: [{ messageId: 'forbidden' }] },
    { filename: at('bench/x.ts'), code: "import { useBaton } from '../renderer/store/index.js';", errors: [{ messageId: 'forbidden' }] },
    {
      filename: at('main/host/pool/x.ts'),
      code: "import { AgentProbe } from '../agents/AgentProbe.js';",
      errors: [{ messageId: 'forbidden' }],
    },
    {
      filename: at('main/host/adapters/x.ts'),
      code: "import { type A, leaseFor } from '../pool/leaseFor.js';",
      errors: [{ messageId: 'forbidden' }],
    },
    { filename: at('main/host/process/x.ts'), code: "import { Host } from '../Host.js';", errors: [{ messageId: 'forbidden' }] },
    {
      filename: at('main/host/newroom/x.ts'),
      code: "import { ownLaunch } from '../binding/ownLaunch.js';",
      errors: [{ messageId: 'forbidden' }],
    },
  ],
});
