import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RICH_TEXT_MAX_BYTES } from '../../src/domain/rich-text.js';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { premiumUser } from '../fixtures/image-app.js';
import { problemOf } from '../support/fixtures.js';
import { minimalDoc, multipartFile, rawZip, zipOf } from '../support/zip.js';
import { png } from '../fixtures/images.js';

// CONTRACT "Hostile input", the budgets of an import that an in-process app can show: the expanded
// bytes read in all (IMPORT_MAX_EXPANDED_BYTES), one import per user at a time, at most
// IMPORTS_MAX_CONCURRENT per instance, notes with more text than a thing holds split (from elsewhere) or refused unparsed (our own vault),
// and imported text within the rich-text limit after its asset URLs are rewritten. The bombs, with
// memory and latency bounds, run against the server process in import-bombs.test.ts.

const EXPANDED = 256 * 1024;
let ctx: TestContext;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({ IMPORT_MAX_EXPANDED_BYTES: String(EXPANDED), IMPORTS_MAX_CONCURRENT: '1', MAX_UPLOAD_BYTES: String(1024 * 1024) });
  owner = await premiumUser(ctx);
  other = await premiumUser(ctx);
});
afterAll(async () => {
  await ctx.close();
});

function importZip(zip: Buffer, user: TestUser = owner) {
  return ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/zip' }, payload: zip });
}

async function campaignCount(): Promise<number> {
  const row = await ctx.database.kysely.selectFrom('campaigns').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('IMPORT_MAX_EXPANDED_BYTES', () => {
  it('refuses a zip whose entries declare more than the budget before reading one, naming the budget', async () => {
    const text = 'a'.repeat(EXPANDED / 2);
    const data = deflateRawSync(Buffer.from(text));
    const zip = rawZip([1, 2, 3].map((i) => ({ name: `Notes/n${i}.md`, data, deflated: true, declaredSize: text.length })));
    const before = await campaignCount();
    const res = await importZip(zip);
    expect(res.statusCode, res.body).toBe(400);
    expect(problemOf(res).code).toBe('invalid_import');
    expect(problemOf(res).detail).toContain('IMPORT_MAX_EXPANDED_BYTES');
    expect(await campaignCount()).toBe(before);
  });

  it('stops reading past the budget when what it reads adds up to more than the entries declare', async () => {
    // 2 × 120 KiB declared (within 256 KiB), but every note is read twice: its first chunk for the front matter, then whole.
    const note = `---\nname: Big\n---\n${'word '.repeat(24 * 1024)}`;
    const zip = await zipOf([1, 2].map((i) => ({ name: `Notes/n${i}.md`, data: note })));
    const before = await campaignCount();
    const res = await importZip(zip);
    expect(res.statusCode, res.body).toBe(400);
    expect(problemOf(res).detail).toMatch(/IMPORT_MAX_EXPANDED_BYTES/);
    expect(await campaignCount()).toBe(before);
  });

  it('imports a vault within the budget', async () => {
    const zip = await zipOf([
      { name: 'NPCs/Ada.md', data: '---\nname: Ada\n---\n# Ada\n\nKnows [[Bo]].\n' },
      { name: 'NPCs/Bo.md', data: 'Plain, no front matter.\n' },
    ]);
    const res = await importZip(zip);
    expect(res.statusCode, res.body).toBe(201);
    expect(json<{ import: { things: number } }>(res).import.things).toBe(2);
  });
});

describe('notes read in two passes (front matter first, then the Markdown)', () => {
  it('give the same name and text wherever the front matter ends against the reader\'s chunks', async () => {
    const big = await createTestContext({});
    try {
      const user = await premiumUser(big);
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: 40 * 1024 }),
          fc.integer({ min: 1, max: 24 }),
          fc.boolean(),
          fc.constantFrom('\n', '\r\n'),
          async (padding, words, withFrontMatter, eol) => {
            // Padding in the front matter moves its end across the inflater's 16 KiB chunks.
            const body = Array.from({ length: words }, (_, i) => `wörd${i}`).join(' ');
            const front = withFrontMatter ? `---${eol}name: Named ✓${eol}pad: "${'p'.repeat(padding)}"${eol}---${eol}` : '';
            const zip = await zipOf([{ name: 'Notes/file-name.md', data: `${front}${body}${eol}` }]);
            const res = await big.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/zip' }, payload: zip });
            expect(res.statusCode, res.body).toBe(201);
            const slug = json<{ slug: string }>(res).slug;
            const things = json<{ slug: string; name: string }[]>(await big.app.inject({ method: 'GET', url: `/api/campaigns/${slug}/things`, headers: user.headers }));
            expect(things).toHaveLength(1);
            expect(things[0]!.name).toBe(withFrontMatter ? 'Named ✓' : 'file-name');
            const thing = json<{ description: { children: { text: string }[] }[] }>(
              await big.app.inject({ method: 'GET', url: `/api/campaigns/${slug}/things/${things[0]!.slug}`, headers: user.headers }),
            );
            expect(thing.description.map((block) => block.children.map((leaf) => leaf.text).join('')).join('\n')).toBe(body);
          },
        ),
        { numRuns: 12 },
      );
    } finally {
      await big.close();
    }
  }, 120_000);
});

describe('notes with more text than a thing holds', () => {
  // CONTRACT "Import from elsewhere": a vault from elsewhere is lenient (the note is split into
  // continued parts, with a warning); our own vault stays exact (refused without being parsed).
  const body = 'word '.repeat(Math.ceil((2 * RICH_TEXT_MAX_BYTES) / 4) + 1);

  it('from elsewhere: imported as continued parts, each within the limit and linking to the next, every word kept', async () => {
    const zip = await zipOf([{ name: 'Notes/huge.md', data: body }]);
    // Within the default budget: a context of its own is not needed, the note is 640 KiB.
    const big = await createTestContext({});
    try {
      const user = await premiumUser(big);
      const res = await big.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/zip' }, payload: zip });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
      const imported = json<{ slug: string; import: { things: number; warnings: { entry: string; problem: string }[] } }>(res);
      const parts = imported.import.things;
      expect(parts).toBeGreaterThanOrEqual(3);
      expect(imported.import.warnings).toEqual([
        { entry: 'Notes/huge.md', problem: expect.stringMatching(new RegExp(`^holds \\d+ bytes of rich text, more than the ${RICH_TEXT_MAX_BYTES} of a thing's text: imported as ${parts} things, "huge" and "huge \\(continued 2\\)" to "huge \\(continued ${parts}\\)", each ending with a mention of the next$`)) },
      ]);
      const base = `/api/campaigns/${imported.slug}`;
      const get = (slug: string) => big.app.inject({ method: 'GET', url: `${base}/things/${slug}`, headers: user.headers });
      type Node = { type?: string; text?: string; targetId?: number; children?: Node[] };
      const words: string[] = [];
      let slug: string | undefined = 'huge';
      for (let k = 1; slug !== undefined; k++) {
        const thing: { id: number; name: string; description: Node[] } = json<{ id: number; name: string; description: Node[] }>(await get(slug));
        expect(thing.name).toBe(k === 1 ? 'huge' : `huge (continued ${k})`);
        expect(Buffer.byteLength(JSON.stringify(thing.description))).toBeLessThanOrEqual(RICH_TEXT_MAX_BYTES);
        const last: Node = thing.description.at(-1)!;
        const next: Node | undefined = last.children?.find((n) => n.type === 'mention');
        const text = (k < parts ? thing.description.slice(0, -1) : thing.description).map((b) => (b.children ?? []).map((n) => n.text ?? '').join('')).join(' ');
        words.push(text);
        if (k < parts) {
          expect(last.children![0]).toEqual({ text: 'Continued in ' });
          const things: { id: number; slug: string }[] = json<{ id: number; slug: string }[]>(await big.app.inject({ method: 'GET', url: `${base}/things?fetchAll=true`, headers: user.headers }));
          slug = things.find((t) => t.id === next!.targetId)!.slug;
        } else slug = undefined;
      }
      // Every character kept (spaces at the edges of blocks and parts are Markdown’s to trim).
      const squeezed = words.join(' ').replace(/\s+/g, ' ');
      expect(squeezed.length).toBe(body.trim().length);
      expect(squeezed === body.trim()).toBe(true);
    } finally {
      await big.close();
    }
  });

  it('of our own vault: refused without being parsed, naming the note', async () => {
    const zip = await zipOf([
      { name: 'index.md', data: '---\nformat: loreforge-vault\nname: Ours\n---\n' },
      { name: 'Notes/huge.md', data: body },
    ]);
    const big = await createTestContext({});
    try {
      const user = await premiumUser(big);
      const res = await big.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, 'content-type': 'application/zip' }, payload: zip });
      expect(res.statusCode, res.body).toBe(400);
      expect(problemOf(res).detail).toMatch(/^Notes\/huge\.md: holds \d+ bytes of text/);
    } finally {
      await big.close();
    }
  });
});

describe('one import per user, IMPORTS_MAX_CONCURRENT per instance', () => {
  it('answers 429 import_in_progress to the same user and 429 with Retry-After past the instance limit, then takes imports again', async () => {
    // An import held open: its body arrives slowly.
    const body = new PassThrough();
    const form = multipartFile(Buffer.from(minimalDoc()), 'slow.json');
    const pending = ctx.app.inject({
      method: 'POST',
      url: '/api/campaigns/import',
      headers: { ...owner.headers, ...form.headers, 'content-length': String(form.payload.length) },
      payload: body,
    });
    body.write(form.payload.subarray(0, 100));
    // Wait until the route holds its slot (its body is being read).
    for (let i = 0; i < 100; i++) {
      const probe = await importZip(await zipOf([{ name: 'x.md', data: 'x' }]), owner);
      if (probe.statusCode === 429) {
        expect(problemOf(probe).code).toBe('import_in_progress');
        break;
      }
      expect(probe.statusCode, probe.body).toBe(201);
    }
    const again = await importZip(await zipOf([{ name: 'x.md', data: 'x' }]), owner);
    expect(again.statusCode).toBe(429);
    expect(problemOf(again).code).toBe('import_in_progress');
    const busy = await importZip(await zipOf([{ name: 'x.md', data: 'x' }]), other);
    expect(busy.statusCode).toBe(429);
    expect(problemOf(busy).code).toBe('rate_limited');
    expect(Number(busy.headers['retry-after'])).toBeGreaterThan(0);

    body.end(form.payload.subarray(100));
    const done = await pending;
    expect(done.statusCode, done.body).toBe(201);
    const after = await importZip(await zipOf([{ name: 'y.md', data: 'y' }]), other);
    expect(after.statusCode, after.body).toBe(201);
  });
});

describe('asset URL rewriting', () => {
  it('refuses an archive whose text grows past the rich-text limit once its image URLs are rewritten, naming the entry', async () => {
    const oldUrl = 'https://o.example/m.png';
    const at = '2026-01-01T00:00:00.000Z';
    // Within the limit as sent (the old URL is short); the new URL is longer.
    const text = `${oldUrl} `.repeat(Math.floor((RICH_TEXT_MAX_BYTES - 200) / (oldUrl.length + 1)));
    const things = [{ id: 1, slug: 'map', typeId: 1, name: 'Map', description: [{ type: 'paragraph', children: [{ text }] }], createdAt: at, updatedAt: at }];
    const assets = [{ id: 1, label: 'Map', url: oldUrl, file: 'images/m.png', createdAt: at }];
    const zip = await zipOf([
      { name: 'campaign.json', data: minimalDoc({ things, assets }) },
      { name: 'images/m.png', data: png() },
    ]);
    const big = await createTestContext({});
    try {
      const user = await premiumUser(big);
      const before = await big.database.kysely.selectFrom('campaigns').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const form = multipartFile(zip, 'rewrite.zip');
      const res = await big.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...user.headers, ...form.headers }, payload: form.payload });
      expect(res.statusCode, res.body).toBe(400);
      expect(problemOf(res).code).toBe('invalid_import');
      expect(problemOf(res).detail).toMatch(/^campaign\.json: \/things\/0\/description must be at most 262144 bytes/);
      const after = await big.database.kysely.selectFrom('campaigns').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      const assetsAfter = await big.database.kysely.selectFrom('assets').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(assetsAfter.n)).toBe(0);
    } finally {
      await big.close();
    }
  });
});
