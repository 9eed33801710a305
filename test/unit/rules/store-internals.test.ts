import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createMemoryLogger } from '../../../server/log.js';
import { createEmptyFile, writeFileAtomic } from '../../../server/atomic-write.js';
import { createDraftStore } from '../../../server/rules/drafts.js';
import { createRuleStore } from '../../../server/rules/rules.js';
import { isRuleFilePath, parseRuleFilePath, type RuleFilePath } from '../../../server/rules/file-names.js';
import { loadRulesDir, type LastGood } from '../../../server/rules/rules-loader.js';
import { createRulesDir } from '../../../server/rules/rules-dir.js';
import { watchRulesDir } from '../../../server/rules/rules-watcher.js';
import { seedExampleRules } from '../../../server/rules/seed-examples.js';
import { tempDir } from '../../helpers/temp-dir.js';

const file = (p: string): RuleFilePath => {
  const parsed = parseRuleFilePath(p);
  assert.ok(isRuleFilePath(parsed));
  return parsed;
};
const NOW = new Date('2025-03-10T00:00:00Z');

/** Timers that run only when the test advances them. */
function manualTimers() {
  let now = 0;
  const waiting = new Map<number, { at: number; fn: () => void }>();
  let next = 0;
  return {
    setTimeout: (fn: () => void, ms: number) => (waiting.set(++next, { at: now + ms, fn }), next),
    clearTimeout: (handle: unknown) => void waiting.delete(handle as number),
    pending: () => waiting.size,
    advance(ms: number) {
      now += ms;
      for (const [id, t] of [...waiting].sort((a, b) => a[1].at - b[1].at))
        if (t.at <= now) {
          waiting.delete(id);
          t.fn();
        }
    },
  };
}

/**
 * Writes a file and resolves once a watcher of the same folder has seen it: Linux delivers one inotify event to
 * every watcher of a folder in the same turn, so the rules watcher has seen it too by the next turn.
 */
async function written(dir: string, name: string, text: string): Promise<void> {
  const seen = new Promise<void>((resolve) => {
    const probe = fs.watch(dir, (_event, file) => {
      if (file !== name) return;
      probe.close();
      resolve();
    });
  });
  fs.writeFileSync(path.join(dir, name), text);
  await seen;
  await new Promise((resolve) => setImmediate(resolve));
}

describe('rules dir listing', () => {
  it('lists top-level files and one level of package folders, in path order, skipping the rest', async () => {
    const root = tempDir();
    for (const p of [
      'b.yml',
      'a.yaml',
      '_vars.yml',
      'notes.txt',
      '.hidden.yml',
      'pkg/x.yml',
      'pkg/_vars.yml',
      'pkg/deep/y.yml',
      '.git/z.yml',
    ]) {
      fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      fs.writeFileSync(path.join(root, p), '');
    }
    const listed = await createRulesDir(root, createMemoryLogger()).list();
    assert.deepEqual(
      listed.map((f) => f.path),
      ['_vars.yml', 'a.yaml', 'b.yml', 'pkg/_vars.yml', 'pkg/x.yml'],
    );
  });

  it('resolves nothing through a symlink that leads outside, and logs why it skips one', async () => {
    const root = tempDir();
    const outside = tempDir();
    fs.writeFileSync(path.join(outside, 'o.yml'), '');
    fs.symlinkSync(path.join(outside, 'o.yml'), path.join(root, 'link.yml'));
    fs.symlinkSync(path.join(root, 'nowhere.yml'), path.join(root, 'dangling.yml'));
    const logger = createMemoryLogger();
    const dir = createRulesDir(root, logger);
    assert.deepEqual(await dir.list(), []);
    assert.equal(await dir.resolve(file('link.yml')), null);
    assert.equal(await dir.resolve(file('dangling.yml')), null);
    assert.equal(
      await dir.resolve(file('new.yml')),
      path.join(root, 'new.yml'),
      'a file that does not exist yet resolves inside',
    );
    assert.ok(logger.lines.some((l) => l.includes('link.yml') && l.includes('outside')));
  });
});

describe('atomic writes and drafts', () => {
  it('replaces a file whole and leaves no temp file', async () => {
    const dir = tempDir();
    const target = path.join(dir, 'f.yml');
    fs.writeFileSync(target, 'old');
    await Promise.all(['one', 'two', 'three'].map((v) => writeFileAtomic(target, v.repeat(100_000))));
    assert.ok(['one', 'two', 'three'].map((v) => v.repeat(100_000)).includes(fs.readFileSync(target, 'utf8')));
    assert.deepEqual(fs.readdirSync(dir), ['f.yml']);
  });

  it('creates a file only once', async () => {
    const target = path.join(tempDir(), 'pkg', 'f.yml');
    assert.equal(await createEmptyFile(target), true);
    assert.equal(await createEmptyFile(target), false);
  });

  it('keeps drafts under drafts/<relative path> and tidies empty package folders', async () => {
    const dataDir = tempDir();
    const drafts = createDraftStore(dataDir);
    const f = file('pkg/a.yml');
    assert.equal(await drafts.read(f), null);
    await drafts.write(f, 'draft');
    assert.equal(fs.readFileSync(path.join(dataDir, 'drafts', 'pkg', 'a.yml'), 'utf8'), 'draft');
    assert.equal(drafts.has(f), true);
    assert.equal(await drafts.remove(f), true);
    assert.equal(await drafts.remove(f), false);
    assert.equal(fs.existsSync(path.join(dataDir, 'drafts', 'pkg')), false);
  });
});

describe('loading', () => {
  async function load(files: Record<string, string>, previous: LastGood = new Map()) {
    const root = tempDir();
    for (const [p, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
      fs.writeFileSync(path.join(root, p), content);
    }
    return {
      root,
      state: await loadRulesDir(createRulesDir(root, createMemoryLogger()), previous, {
        now: NOW,
        env: { SVC_VAR_X: 'from env' },
      }),
    };
  }

  it('renders global vars, then package vars over them, for each package', async () => {
    const { state } = await load({
      '_vars.yml': "a: global\nb: '{{ env.SVC_VAR_X }}'\n",
      'pkg/_vars.yml': "a: package\nc: '{{ vars.b }} via package'\n",
      'pkg/r.yml': 'rules:\n  - id: in-pkg\n',
      'other/r.yml': 'rules:\n  - id: in-other\n',
      'top.yml': 'rules:\n  - id: at-top\n',
    });
    const vars = Object.fromEntries(state.rules.map((r) => [r.id, r.vars]));
    assert.deepEqual(vars['in-pkg'], { a: 'package', b: 'from env', c: 'from env via package' });
    assert.deepEqual(vars['in-other'], { a: 'global', b: 'from env' });
    assert.deepEqual(vars['at-top'], { a: 'global', b: 'from env' });
  });

  it('keeps the last good vars and rules of files that break, with their errors', async () => {
    const first = await load({ '_vars.yml': 'a: 1\n', 'r.yml': 'rules:\n  - id: r1\n' });
    const root = first.root;
    fs.writeFileSync(path.join(root, '_vars.yml'), "a: '{{ broken'\n");
    fs.writeFileSync(path.join(root, 'r.yml'), 'rules: [\n');
    const second = await loadRulesDir(createRulesDir(root, createMemoryLogger()), first.state.lastGood, {
      now: NOW,
      env: {},
    });
    assert.deepEqual(
      second.rules.map((r) => [r.id, r.vars]),
      [['r1', { a: 1 }]],
    );
    const errors = Object.fromEntries(second.files.map((f) => [f.file.path, f.error?.message ?? null]));
    assert.match(String(errors['_vars.yml']), /^line 1, column 4: /);
    assert.match(String(errors['r.yml']), /YAML syntax error/);
    // A third load with the files removed forgets them.
    fs.rmSync(path.join(root, 'r.yml'));
    const third = await loadRulesDir(createRulesDir(root, createMemoryLogger()), second.lastGood, {
      now: NOW,
      env: {},
    });
    assert.deepEqual(third.rules, []);
  });

  it('fails a rule file whose tests fail, and does not load it', async () => {
    const { state } = await load({
      'r.yml':
        'rules:\n  - id: r1\n    when: { title: x }\n    tests:\n      - document: { title: y }\n        expect: { matched: true }\n',
    });
    assert.deepEqual(state.rules, []);
    assert.match(String(state.files[0].error?.message), /^line 6, column \d+: rule "r1" failed its test/);
  });
});

describe('watching and seeding', () => {
  it('calls back once per burst of changes, ignoring dot files, and stops when closed', async () => {
    const root = tempDir();
    const clock = manualTimers();
    let calls = 0;
    const watcher = watchRulesDir(root, () => calls++, createMemoryLogger(), 100, clock);
    try {
      await written(root, '.temp.tmp', 'x');
      assert.equal(clock.pending(), 0, 'dot files are ignored');
      for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(root, 'a.yml'), String(i));
      await written(root, 'a.yml', '4');
      assert.equal(clock.pending(), 1, 'each change replaces the waiting reload');
      clock.advance(99);
      assert.equal(calls, 0, 'not before the quiet time has passed');
      clock.advance(1);
      assert.equal(calls, 1, 'one burst, one reload');
    } finally {
      watcher.close();
    }
    await written(root, 'b.yml', 'x');
    clock.advance(1000);
    assert.equal(calls, 1, 'no callback after close');
  });

  it('copies examples only into an empty rules dir', () => {
    const examples = tempDir();
    fs.mkdirSync(path.join(examples, 'pkg'));
    fs.writeFileSync(path.join(examples, 'a.yml'), 'a');
    fs.writeFileSync(path.join(examples, 'pkg', 'b.yml'), 'b');
    fs.writeFileSync(path.join(examples, 'README.txt'), 'not a rule file');
    const empty = tempDir();
    assert.deepEqual(seedExampleRules(empty, examples, createMemoryLogger()), ['a.yml', 'pkg/b.yml']);
    assert.equal(fs.readFileSync(path.join(empty, 'pkg', 'b.yml'), 'utf8'), 'b');
    const used = tempDir();
    fs.writeFileSync(path.join(used, 'mine.yml'), 'mine');
    assert.deepEqual(seedExampleRules(used, examples, createMemoryLogger()), []);
    assert.deepEqual(
      seedExampleRules(examples, examples, createMemoryLogger()),
      [],
      'the examples dir itself is never seeded',
    );
  });
});

describe('the store when its folder disappears', () => {
  it('keeps the loaded rules and reports the unreadable rules dir', async () => {
    const root = tempDir();
    const rulesDir = path.join(root, 'rules');
    fs.mkdirSync(rulesDir);
    fs.writeFileSync(path.join(rulesDir, 'a.yml'), 'rules:\n  - id: survivor\n');
    const store = await createRuleStore({
      rulesDir,
      dataDir: path.join(root, 'data'),
      logger: createMemoryLogger(),
      templateEnv: {},
      vocabulary: () => Promise.reject(new Error('offline')),
      watch: false,
    });
    try {
      fs.renameSync(rulesDir, path.join(root, 'moved'));
      const report = await store.reload();
      assert.equal(report.errors[0].path, '');
      assert.match(report.errors[0].error, /could not be read.*stay in use/);
      assert.deepEqual(
        store.loadedRules().map((r) => r.id),
        ['survivor'],
      );
      fs.renameSync(path.join(root, 'moved'), rulesDir);
      assert.deepEqual((await store.reload()).errors, []);
    } finally {
      await store.close();
    }
  });
});

describe('a saved file loads again after a restart', () => {
  it('gives its tests the same answer whether or not the dms has answered (Betrag: EUR1120.00)', async () => {
    const root = tempDir();
    const rulesDir = path.join(root, 'rules');
    fs.mkdirSync(rulesDir);
    const vocabulary = {
      users: [
        { id: 3, name: 'anna' },
        { id: 4, name: 'ben' },
      ],
      groups: [{ id: 1, name: 'Family' }],
      tags: [{ id: 1, name: 'teuer', is_inbox_tag: false, parent: null }],
      correspondents: [],
      document_types: [],
      storage_paths: [],
      custom_fields: [
        { id: 1, name: 'Betrag', data_type: 'monetary' as const, extra_data: { default_currency: 'EUR' } },
      ],
    };
    const content = [
      'rules:',
      '  - id: big-invoice',
      '    when: { custom_fields.Betrag: { gt: 1000 } }',
      '    actions: [{ add_tags: teuer }]',
      '    tests:',
      '      - document: { custom_fields: { Betrag: EUR1120.00 } }',
      '        expect: { matched: true, changes: { tags: [teuer] } }',
      '',
    ].join('\n');
    const options = {
      rulesDir,
      dataDir: path.join(root, 'data'),
      logger: createMemoryLogger(),
      templateEnv: {},
      watch: false,
    };
    const online = await createRuleStore({ ...options, vocabulary: async () => vocabulary });
    try {
      const { id } = await online.createFile('big.yml');
      await online.saveFile(id, content);
    } finally {
      await online.close();
    }
    const restarted = await createRuleStore({ ...options, vocabulary: () => Promise.reject(new Error('not up yet')) });
    try {
      assert.deepEqual(
        restarted.listFiles().files.map((f) => f.error),
        [null],
      );
      assert.deepEqual(
        restarted.loadedRules().map((r) => r.id),
        ['big-invoice'],
      );
    } finally {
      await restarted.close();
    }
  });
});
