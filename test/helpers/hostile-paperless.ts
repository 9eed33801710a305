import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { startTestServer, tempDir, type TestServer } from './test-server.js';

/**
 * How one list lies. `count` replaces the true count; `next` makes the `next` link never end (`endless`),
 * point at another host (`foreign`) or name the page just read again (`repeat`); `overlong` answers one item
 * more than the page size asked for.
 */
export interface ListLie {
  count?: number;
  next?: 'endless' | 'foreign' | 'repeat';
  overlong?: boolean;
}

export interface HostilePaperlessOptions {
  /** By list path, e.g. `/api/documents/` or `/api/tags/`. Lists not named answer honestly. */
  lies?: Record<string, ListLie>;
  /** Honest documents, ids 1..n (default 3). */
  documents?: number;
  /** Answers `GET /api/documents/<id>/` itself when it returns true (a huge body, another id, an echo…). */
  answerDocument?: (id: number, req: http.IncomingMessage, res: http.ServerResponse) => boolean;
  /** A wrong token's 401 quotes the Authorization header it came with, as some proxies' error pages do. */
  echoAuthorization?: boolean;
}

export interface HostilePaperless {
  url: string;
  token: string;
  /** Requests received, by `METHOD path` (query left out). */
  counts(): Record<string, number>;
  /** The largest `page` asked of a list path. */
  highestPage(path: string): number;
  close(): Promise<void>;
}

const TOKEN = 'hostile-token';

/** The headers of every answer: JSON, as Paperless 2.18.4 at API version 9. */
export const PAPERLESS_HEADERS = { 'content-type': 'application/json', 'x-version': '2.18.4', 'x-api-version': '9' };

/** A whole document as the fake answers it (`content` may be replaced, e.g. by megabytes of text). */
export function paperlessDocument(id: number, content = `content of ${id}`) {
  return {
    id,
    title: `Document ${id}`,
    content,
    correspondent: null,
    document_type: null,
    storage_path: null,
    tags: [],
    created: '2024-01-01',
    modified: '2024-01-01T00:00:00Z',
    added: '2024-01-01T00:00:00Z',
    archive_serial_number: null,
    original_file_name: `${id}.pdf`,
    owner: null,
    notes: [],
    custom_fields: [],
    page_count: 1,
    mime_type: 'application/pdf',
    permissions: { view: { users: [], groups: [] }, change: { users: [], groups: [] } },
  };
}

/** An item of a vocabulary list (tags carry the extra fields the client reads). */
function item(path: string, id: number) {
  const name = `${path.split('/')[2]}-${id}`;
  if (path === '/api/users/') return { id, username: name };
  if (path === '/api/custom_fields/') return { id, name, data_type: 'string', extra_data: {} };
  return { id, name, owner: null, is_inbox_tag: false, parent: null, color: '#000000', matching_algorithm: 0 };
}

/**
 * A Paperless-ngx stand-in that lies about its lists (plain node:http on 127.0.0.1). Honest where not told to
 * lie: enough of the API for the service to start, ping, list vocabulary and read documents. Items are made per
 * page, so a count of 5e9 costs the fake nothing.
 */
export async function startHostilePaperless(options: HostilePaperlessOptions = {}): Promise<HostilePaperless> {
  const honest = options.documents ?? 3;
  const counts: Record<string, number> = {};
  const highest: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const key = `${req.method} ${url.pathname}`;
    counts[key] = (counts[key] ?? 0) + 1;
    const send = (status: number, body: unknown) => {
      res.writeHead(status, PAPERLESS_HEADERS);
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Token ${TOKEN}`)
      return send(401, {
        detail: options.echoAuthorization ? `Invalid token in ${req.headers.authorization}` : 'Invalid token.',
      });
    const one = /^\/api\/documents\/(\d+)\/$/.exec(url.pathname);
    if (one && options.answerDocument?.(Number(one[1]), req, res)) return;
    if (one)
      return Number(one[1]) <= honest
        ? send(200, paperlessDocument(Number(one[1])))
        : send(404, { detail: 'No Document matches the given query.' });
    if (!/^\/api\/[a-z_]+\/$/.test(url.pathname)) return send(404, { detail: 'Not found.' });

    const lie = options.lies?.[url.pathname] ?? {};
    const page = Number(url.searchParams.get('page') ?? '1');
    const size = Number(url.searchParams.get('page_size') ?? '25');
    highest[url.pathname] = Math.max(highest[url.pathname] ?? 0, page);
    const isDocuments = url.pathname === '/api/documents/';
    const idIn = url.searchParams.get('id__in');
    if (isDocuments && idIn !== null) {
      const ids = idIn.split(',').map(Number);
      return send(200, {
        count: ids.length,
        next: null,
        previous: null,
        results: ids.map((id) => paperlessDocument(id)),
      });
    }
    const total = lie.count ?? (isDocuments ? honest : 0);
    const pages = lie.next ? Infinity : Math.max(1, Math.ceil(total / size));
    if (page > pages) return send(404, { detail: 'Invalid page.' });
    const first = (page - 1) * size + 1;
    const length = lie.overlong ? size + 1 : lie.next ? 1 : Math.max(0, Math.min(size, total - first + 1));
    const descending = url.searchParams.get('ordering') === '-id';
    const ids = Array.from({ length }, (_, i) => (descending ? total - first - i + 1 : first + i));
    const results = isDocuments
      ? ids.map((id) => (url.searchParams.get('fields') === 'id' ? { id } : paperlessDocument(id)))
      : ids.map((id) => item(url.pathname, id));
    const own = `http://${req.headers.host}${url.pathname}`;
    const link = (p: number) => {
      const q = new URLSearchParams(url.searchParams);
      q.set('page', String(p));
      q.sort();
      return `${own}?${q.toString()}`;
    };
    let next: string | null = page < pages ? link(page + 1) : null;
    if (lie.next === 'foreign') next = `http://evil.example:9/steal${url.pathname}?page=${page + 1}`;
    if (lie.next === 'repeat') next = link(Math.max(2, page));
    send(200, { count: lie.next ? Math.max(total, 1) : total, next, previous: null, results });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: TOKEN,
    counts: () => ({ ...counts }),
    highestPage: (path) => highest[path] ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A rule that changes every document it sees (a title with "!" appended). */
const RETITLE_RULES = `
rules:
  - id: retitle
    when: { title: { contains: "" } }
    actions:
      - set_title: "{{ doc.title }}!"
`;

/** The real service, its rules one that retitles every document, against `fake` as its dms. */
export async function startServiceAgainst(
  fake: HostilePaperless,
  env: Record<string, string> = {},
): Promise<TestServer> {
  const rulesDir = tempDir();
  fs.writeFileSync(path.join(rulesDir, 'rules.yml'), RETITLE_RULES);
  return startTestServer({ SVC_DMS_URL: fake.url, SVC_DMS_TOKEN: fake.token, ...env }, { rulesDir });
}
