// The rules workspace: file tree on the left, the editor in the middle, run panel or vars preview on the right.
import { errorMessage, request } from '../api.js';
import { h } from '../dom.js';
import { editorPane } from '../components/editor-pane.js';
import { fileTree, newFileForm } from '../components/file-tree.js';
import { runPanel } from '../components/run-panel.js';
import { varsPreview } from '../components/vars-preview.js';
import type { CompletionData } from '../editor/schema-completion.js';
import type { SchemaNode } from '../editor/schema-walk.js';
import { EMPTY_VOCABULARY, normalizeLanguage, normalizeVocabulary } from '../editor/vocabulary.js';
import { navigate, setDirtyCheck } from '../router.js';
import type { RuleList } from '../types.js';

/** Rule ids declared in a rule file's text (`- id: x` items), in order. */
export function ruleIdsIn(content: string): string[] {
  return [...content.matchAll(/^\s*-\s+id:\s*["']?([a-z0-9][a-z0-9_-]*)["']?\s*(#.*)?$/gm)].map((m) => m[1]);
}

/** The width below which the workspace is one column (app.css has the same breakpoint). */
const NARROW = '(max-width: 760px)';

let completionData: CompletionData = { schema: null, vocabulary: EMPTY_VOCABULARY };
/** Why the dms's names are missing from completion, when they are. */
let dmsNamesProblem: string | null = null;

/** Fetches the schema and the dms names; the editor works without them (no completion) if this fails. */
async function loadCompletionData(): Promise<void> {
  try {
    const [r, targets] = await Promise.all([
      request<{ schema: SchemaNode; vocabulary: unknown }>('/api/ui/schema'),
      // Read at every page load, so a target added in the settings is offered at once.
      request<{ targets: Array<{ name: string }> }>('/api/ui/settings/notify-targets').catch(() => ({ targets: [] })),
    ]);
    const vars = (r.vocabulary as { vars?: unknown } | null)?.vars;
    completionData = {
      schema: r.schema,
      vocabulary: {
        ...normalizeVocabulary(r.vocabulary),
        notify_targets: targets.targets.map((t) => t.name),
      },
      language: normalizeLanguage(r.vocabulary),
      vars: Array.isArray(vars) ? vars.filter((v): v is string => typeof v === 'string') : [],
    };
    const dms = (r.vocabulary as { dms?: { error?: unknown } } | null)?.dms;
    dmsNamesProblem = typeof dms?.error === 'string' && dms.error ? dms.error : null;
  } catch {
    // Keep what we had: completion is a help, not a requirement.
  }
}

export async function renderRulesPage(main: HTMLElement, fileId: string | null): Promise<() => void> {
  const treeHost = h('div', { class: 'tree-host' });
  const center = h('div', { class: 'center' });
  const side = h('aside', { class: 'side', attrs: { 'aria-label': 'Run and preview' } });
  // On a phone the list is folded while a file is open, so the editor is on the first screen.
  const folded = fileId !== null && window.matchMedia(NARROW).matches;
  main.append(
    h(
      'nav',
      { class: 'files', attrs: { 'aria-label': 'Rule files' } },
      h(
        'details',
        { class: 'files-fold', attrs: { open: !folded } },
        h('summary', {}, h('h2', {}, 'Rule files')),
        treeHost,
        newFileForm((id) => navigate(`/rules/${encodeURIComponent(id)}`)),
        h('a', { class: 'suggest-link', attrs: { href: '/suggest', 'data-nav': true } }, 'Suggest a rule'),
      ),
    ),
    center,
    side,
  );
  const stops: Array<() => void> = [];
  const schemaReady = loadCompletionData();

  let list: RuleList;
  try {
    list = await request<RuleList>('/api/ui/rules');
  } catch (err) {
    treeHost.replaceChildren(
      h(
        'p',
        { class: 'error-box', attrs: { role: 'alert', 'data-load-failed': true } },
        `Cannot list the rule files: ${errorMessage(err)}`,
      ),
    );
    return () => undefined;
  }
  const refreshTree = async (): Promise<void> => {
    try {
      list = await request<RuleList>('/api/ui/rules');
      treeHost.replaceChildren(fileTree(list.files, fileId));
    } catch (err) {
      treeHost.prepend(h('p', { class: 'error-box' }, errorMessage(err)));
    }
  };
  treeHost.replaceChildren(fileTree(list.files, fileId));

  const file = fileId ? list.files.find((f) => f.id === fileId) : undefined;
  let editorRef: { text(): string; version(): 'unsaved' | 'draft' | 'published' } | null = null;
  const run = runPanel(
    file && !file.is_vars
      ? {
          fileId: file.id,
          path: file.path,
          text: () => editorRef?.text() ?? '',
          version: () => editorRef?.version() ?? 'published',
        }
      : undefined,
  );
  stops.push(() => run.stop());

  if (!file) {
    center.append(
      h(
        'section',
        { class: 'empty-state big' },
        h('h2', {}, fileId ? 'That rule file does not exist (any more).' : 'Pick a rule file'),
        h(
          'p',
          {},
          list.files.length
            ? 'Choose a file on the left to edit its rules, or create a new one.'
            : 'There are no rule files yet. Create one on the left: for example finance/invoices.yml.',
        ),
      ),
    );
    run.setRules([], Object.keys(list.loaded));
    side.append(run.element);
    return () => stops.forEach((s) => s());
  }

  await schemaReady;
  const preview = file.is_vars ? varsPreview(file.id) : null;
  let pane;
  try {
    pane = await editorPane({
      file,
      completion: file.is_vars ? null : () => completionData,
      onContent: (content) => {
        preview?.update(content);
        if (!file.is_vars) run.setRules(ruleIdsIn(content), Object.keys(list.loaded));
      },
      onStored: (deleted) => {
        if (deleted) navigate('/rules', { force: true });
        else void refreshTree();
      },
    });
  } catch (err) {
    center.append(
      h(
        'p',
        { class: 'error-box', attrs: { role: 'alert', 'data-load-failed': true } },
        `Cannot open ${file.path}: ${errorMessage(err)}`,
      ),
    );
    return () => stops.forEach((s) => s());
  }
  const editor = pane;
  editorRef = editor;
  stops.push(() => editor.stop());
  setDirtyCheck(() => editor.isDirty());
  center.append(editor.element);
  // Opening a file puts the keyboard in it (a rule link may already have put the cursor on its rule).
  if (!editor.element.contains(document.activeElement)) editor.focus();
  if (dmsNamesProblem && !file.is_vars) {
    editor.element.insertBefore(
      h('p', { class: 'banner small', attrs: { role: 'note' } }, `No dms names to suggest: ${dmsNamesProblem}`),
      editor.element.querySelector('.editor-host'),
    );
  }

  if (preview) {
    stops.push(() => preview.stop());
    side.append(preview.element);
    preview.update(editor.text());
  } else {
    run.setRules(ruleIdsIn(editor.text()), Object.keys(list.loaded));
    side.append(run.element);
  }
  return () => stops.forEach((s) => s());
}
