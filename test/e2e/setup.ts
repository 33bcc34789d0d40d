// Global set-up of the `browser` project: a browser, and one production build of the server with
// the web app written into a folder of this run (served with WEB_ROOT, so no other suite's build
// rewrites it mid-run). Without Chromium the run installs Debian's package (this machine's kind:
// root and apt); when that is not possible it fails and says how to get one: never a silent skip.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { TestProject } from 'vitest/node';
import { buildServer, tempDir } from '../../toolkit/server.js';
import { CHROMIUM } from './chromium.js';

function ensureChromium(): void {
  if (fs.existsSync(CHROMIUM)) return;
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch {
    try {
      execFileSync('apt-get', ['update'], { stdio: 'inherit' });
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    } catch (error) {
      throw new Error(`The browser tests need Chromium at ${CHROMIUM} and it could not be installed (${String(error)}). Install it with: apt-get install -y chromium`);
    }
  }
  if (!fs.existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
}

export default async function setup(project: TestProject): Promise<() => void> {
  ensureChromium();
  const webRoot = tempDir('loreforge-e2e-web-');
  const entry = await buildServer({ web: webRoot });
  project.provide('e2e', { entry, webRoot });
  return () => fs.rmSync(webRoot, { recursive: true, force: true });
}
