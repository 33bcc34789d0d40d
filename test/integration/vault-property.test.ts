import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, json, type TestContext, type TestUser } from '../support/app.js';
import { premiumUser } from '../fixtures/image-app.js';
import { dialect } from '../support/test-db.js';
import { multipartFile, zipOf } from '../support/zip.js';
import { ATTACHMENT_FOLDERS, isTemplatesFolder } from '../../src/portability/vault/layout.js';

// CONTRACT "Import from elsewhere", as a property: a random vault (names with Unicode and spaces,
// nested folders, links of every form Obsidian writes, front matter of every YAML kind, some of it
// broken) imports without a 5xx, and every link whose target is in the generated vault becomes a
// mention of that target, with its label.

let ctx: TestContext;
let owner: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({});
  owner = await premiumUser(ctx);
});
afterAll(async () => {
  await ctx.close();
});

type Doc = Record<string, any>;

// Characters of real notes' names (Obsidian forbids * " \ / < > : | ? # ^ [ ] in them; `_` would be
// Markdown emphasis around a wikilink's text).
const segment = fc
  .array(fc.constantFrom('a', 'B', 'c', 'D', 'é', 'ß', 'Ω', '日本', '😀', ' ', '-', "'", '&', ',', '1'), { minLength: 1, maxLength: 8 })
  .map((chars) => chars.join('').trim().replace(/\s+/g, ' '))
  .filter((name) => name !== '' && !/^[-,]/.test(name));
const folderName = segment.filter((name) => !isTemplatesFolder(name) && !ATTACHMENT_FOLDERS.has(name.toLowerCase()));

const yamlValue = fc.oneof(
  fc.constantFrom('plain text', '"quoted: with colon"', "'single'", '42', '-3.5', 'true', 'false', 'null', '', '~', '2024-05-01', '2024-05-01T10:30:00Z', '[a, b, 3]', '{x: 1, y: [2]}', '.inf', '"[[Nobody]]"'),
  // Broken as real converters write it.
  fc.constantFrom('["Laiba "Nana" Rosse"]', '"unterminated', '[a, b', '{x: ', '\tindented by a tab', ': colon first'),
);
const frontMatter = fc.array(fc.tuple(fc.constantFrom('species', 'level', 'Location', 'tags', 'aliases', 'alias', 'date', 'employer', 'species', 'a key with spaces'), yamlValue), { maxLength: 5 });

const LINK_FORMS = ['name', 'name-label', 'name-heading', 'name-block', 'name-heading-label', 'root', 'root-md', 'markdown-root', 'markdown-relative', 'markdown-encoded', 'lower-case', 'alias'] as const;
type LinkForm = (typeof LINK_FORMS)[number];

const vaultArb = fc
  .record({
    notes: fc.uniqueArray(fc.record({ folders: fc.array(folderName, { maxLength: 3 }), name: segment }), {
      minLength: 1,
      maxLength: 7,
      selector: (n) => [...n.folders, n.name].join('/').normalize('NFC').toLowerCase(),
    }),
    links: fc.array(fc.record({ from: fc.nat(), to: fc.nat(), form: fc.constantFrom(...LINK_FORMS), label: segment }), { maxLength: 12 }),
    frontMatters: fc.array(frontMatter, { maxLength: 7 }),
  })
  .map(({ notes, links, frontMatters }) => {
    const paths = notes.map((n) => [...n.folders, n.name].join('/'));
    const names = notes.map((n) => n.name.normalize('NFC').toLowerCase());
    const unique = (i: number) => names.filter((n) => n === names[i]).length === 1;
    return { notes, paths, unique, links, frontMatters };
  });

function relative(from: string, to: string): string {
  const a = from.split('/').slice(0, -1);
  const b = to.split('/');
  let common = 0;
  while (common < a.length && common < b.length - 1 && a[common] === b[common]) common++;
  const up = a.length - common;
  return [...(up === 0 ? ['.'] : Array.from({ length: up }, () => '..')), ...b.slice(common)].join('/');
}

describe(`random vaults on ${dialect}`, () => {
  it('import without a 5xx, every link to a note of the vault a mention of it', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(vaultArb, async (vault) => {
        runs += 1;
        const { notes, paths, unique, frontMatters } = vault;
        // Each note's expected mentions: [target index, label].
        const expected = notes.map(() => [] as [number, string][]);
        const bodies = notes.map((_, i) => [`marker${i}`, '']);
        const aliasOf = (i: number) => `alias ${i} zq`;
        for (const link of vault.links) {
          const from = link.from % notes.length;
          const to = link.to % notes.length;
          let form: LinkForm = link.form;
          // By name only when the name is the vault's only one (else the nearest: not this property's business).
          if (['name', 'name-label', 'name-heading', 'name-block', 'name-heading-label', 'lower-case'].includes(form) && !unique(to)) form = 'root';
          const name = notes[to]!.name;
          const full = paths[to]!;
          // A path without a leading `/` is looked for in the linking note's folder first (read.ts
          // Resolver, as Obsidian does): when the path names a note there too, only `/` reaches the root's.
          const fromFolder = paths[from]!.includes('/') ? paths[from]!.slice(0, paths[from]!.lastIndexOf('/')) : '';
          const key = (p: string) => p.normalize('NFC').toLowerCase();
          if (form === 'root-md' && fromFolder !== '' && paths.some((p) => key(p) === key(`${fromFolder}/${full}`))) form = 'root';
          const encoded = (p: string) => p.split('/').map((s) => (s === '.' || s === '..' ? s : encodeURIComponent(s))).join('/');
          const text: Record<LinkForm, [string, string]> = {
            name: [`[[${name}]]`, ''],
            'name-label': [`[[${name}|${link.label}]]`, link.label],
            'name-heading': [`[[${name}#Some heading]]`, ''],
            'name-block': [`[[${name}^b1c2]]`, ''],
            'name-heading-label': [`[[${name}#Heading|${link.label}]]`, link.label],
            root: [`[[/${full}]]`, ''],
            'root-md': [`[[${full}.md|${link.label}]]`, link.label],
            'markdown-root': [`[${link.label}](${encoded(`/${full}.md`)})`, link.label],
            'markdown-relative': [`[${link.label}](<${relative(paths[from]!, full)}.md>)`, link.label],
            'markdown-encoded': [`[${link.label}](${encoded(relative(paths[from]!, full))}.md)`, link.label],
            'lower-case': [`[[${name.toLowerCase()}]]`, ''],
            alias: [`[[${aliasOf(to)}]]`, ''],
          };
          const [markdown, label] = text[form];
          bodies[from]!.push(`${markdown} and`);
          // A label equal to the target's name is no label.
          expected[from]!.push([to, label === name ? '' : label]);
        }
        const entries = notes.map((_, i) => {
          const yaml = [`aliases: ["${aliasOf(i)}"]`, ...(frontMatters[i] ?? []).filter(([key]) => key !== 'aliases' && key !== 'alias').map(([key, value]) => `${key}: ${value}`)];
          return { name: `${paths[i]}.md`, data: `---\n${yaml.join('\n')}\n---\n${bodies[i]!.join('\n')}\n` };
        });
        // A note at the top: the vault is not one wrapping folder.
        entries.push({ name: 'Home zq.md', data: 'Home.\n' });
        const form = multipartFile(await zipOf(entries), 'random.zip');
        const res = await ctx.app.inject({ method: 'POST', url: '/api/campaigns/import', headers: { ...owner.headers, ...form.headers }, payload: form.payload });
        expect(res.statusCode, res.body).toBe(201);
        const slug = json<{ slug: string }>(res).slug;
        const base = `/api/campaigns/${slug}`;
        const all = json<Doc[]>(await ctx.app.inject({ method: 'GET', url: `${base}/things?fetchAll=true`, headers: owner.headers }));
        const byMarker = new Map<number, Doc>();
        for (const listed of all) {
          const thing = json<Doc>(await ctx.app.inject({ method: 'GET', url: `${base}/things/${listed.slug}`, headers: owner.headers }));
          const marker = /^marker(\d+)$/.exec(thing.description[0]?.children?.[0]?.text ?? '');
          if (marker) byMarker.set(Number(marker[1]), thing);
        }
        expect(byMarker.size).toBe(notes.length);
        for (const [i, thing] of byMarker) {
          const mentions: [number, string][] = [];
          const walk = (nodes: Doc[]) => {
            for (const node of nodes) {
              if (node.type === 'mention') mentions.push([[...byMarker].find(([, t]) => t.id === node.targetId)?.[0] ?? -1, node.children.map((c: Doc) => c.text).join('')]);
              else if (Array.isArray(node.children)) walk(node.children);
            }
          };
          walk(thing.description);
          expect(mentions, `${paths[i]}: ${JSON.stringify(thing.description)}`).toEqual(expected[i]);
        }
        await ctx.app.inject({ method: 'DELETE', url: base, headers: owner.headers });
      }),
      { numRuns: 25 },
    );
    expect(runs).toBe(25);
  }, 120_000);
});
