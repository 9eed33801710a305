import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseFaultSpec, type ActiveFault, type FaultInjector } from './faults.js';
import { readBody, writeResult, type SimResult } from '../../server/dms/demo/http-kit.js';
import type { PersonEdits, SimActor } from './person-edits.js';
import type { SimDocument } from '../../server/dms/demo/sim-types.js';
import type { WorkflowWebhook, WorkflowWebhookConfig } from './workflow-webhook.js';
import type { TaskQueue, TaskQueueConfig } from './celery-tasks.js';

export interface ControlDeps {
  token: string;
  faults: FaultInjector;
  webhook: WorkflowWebhook;
  tasks: TaskQueue;
  counts(): Record<string, number>;
  resetCounts(): void;
  addDocument(doc: Partial<SimDocument>): SimDocument;
  generate(count: number, seed: number): number;
  people: PersonEdits;
  setAuditLog(enabled: boolean): void;
}

/** `{changes, actor, webhook}` / `{note, actor}`: `actor` is a username, or null (or absent) for a Paperless workflow. */
interface EditBody {
  changes?: Record<string, unknown>;
  note?: string;
  actor?: SimActor;
  webhook?: boolean;
}

/**
 * `/__sim/…`: the control API for tests and benchmarks in another process (same token as the API).
 * Not part of Paperless; never counted, never faulted.
 */
export async function handleControl(req: IncomingMessage, res: ServerResponse, deps: ControlDeps): Promise<void> {
  const answer = (result: SimResult) => writeResult(res, result, {});
  if ((req.headers.authorization ?? '') !== `Token ${deps.token}`)
    return answer({ status: 401, body: { detail: 'Invalid token.' } });
  const path = new URL(req.url ?? '/', 'http://sim').pathname;
  const method = req.method ?? 'GET';
  const raw = method === 'GET' || method === 'DELETE' ? '' : await readBody(req);
  let body: unknown;
  try {
    body = raw ? JSON.parse(raw) : null;
  } catch {
    return answer({ status: 400, body: { detail: 'Send JSON.' } });
  }
  try {
    if (path === '/__sim/counts' && method === 'GET') return answer({ status: 200, body: deps.counts() });
    if (path === '/__sim/counts' && method === 'DELETE') {
      deps.resetCounts();
      return answer({ status: 204 });
    }
    if (path === '/__sim/faults' && method === 'GET')
      return answer({ status: 200, body: deps.faults.list().map(serializeFault) });
    if (path === '/__sim/faults' && method === 'POST')
      return answer({ status: 201, body: serializeFault(deps.faults.inject(parseFaultSpec(body))) });
    if (path === '/__sim/faults' && method === 'DELETE') {
      deps.faults.clear();
      return answer({ status: 204 });
    }
    const faultId = /^\/__sim\/faults\/(\d+)$/.exec(path);
    if (faultId && method === 'DELETE') {
      deps.faults.remove(Number(faultId[1]));
      return answer({ status: 204 });
    }
    if (path === '/__sim/workflow-webhook' && method === 'PUT') {
      deps.webhook.configure(body as WorkflowWebhookConfig | null);
      return answer({ status: 200, body: deps.webhook.stats() });
    }
    if (path === '/__sim/tasks' && method === 'PUT') {
      deps.tasks.configure(body as TaskQueueConfig | null);
      return answer({ status: 200, body: { pending: deps.tasks.pending() } });
    }
    if (path === '/__sim/tasks' && method === 'GET')
      return answer({ status: 200, body: { pending: deps.tasks.pending() } });
    if (path === '/__sim/tasks/release' && method === 'POST')
      return answer({ status: 200, body: { released: deps.tasks.release() } });
    if (path === '/__sim/workflow-webhook' && method === 'GET')
      return answer({ status: 200, body: deps.webhook.stats() });
    if (path === '/__sim/documents' && method === 'POST')
      return answer({ status: 201, body: deps.addDocument(body ?? {}) });
    const edit = /^\/__sim\/documents\/(\d+)(\/notes|\/during-next-write)?$/.exec(path);
    if (edit) {
      const input = (body ?? {}) as EditBody;
      const id = Number(edit[1]);
      const actor = input.actor ?? null;
      if (!edit[2] && method === 'PATCH')
        return answer({
          status: 200,
          body: deps.people.editAs(id, input.changes ?? {}, actor, { webhook: input.webhook }),
        });
      if (edit[2] === '/notes' && method === 'POST')
        return answer({
          status: 201,
          body: deps.people.addNoteAs(id, typeof input.note === 'string' ? input.note : '', actor),
        });
      if (edit[2] === '/during-next-write' && method === 'POST') {
        deps.people.duringNextWrite(id, input.changes ?? {}, actor, { webhook: input.webhook });
        return answer({ status: 204 });
      }
    }
    const tokenFor = /^\/__sim\/tokens\/([^/]+)$/.exec(path);
    if (tokenFor && method === 'GET')
      return answer({ status: 200, body: { token: deps.people.tokenFor(decodeURIComponent(tokenFor[1])) } });
    if (path === '/__sim/audit-log' && method === 'PUT') {
      deps.setAuditLog((body as { enabled?: unknown } | null)?.enabled !== false);
      return answer({ status: 204 });
    }
    if (path === '/__sim/generate' && method === 'POST') {
      const input = (body ?? {}) as { count?: unknown; seed?: unknown };
      return answer({ status: 201, body: { added: deps.generate(Number(input.count ?? 0), Number(input.seed ?? 1)) } });
    }
  } catch (err) {
    return answer({ status: 400, body: { detail: (err as Error).message } });
  }
  return answer({ status: 404, body: { detail: `No simulator control route ${method} ${path}.` } });
}

function serializeFault(fault: ActiveFault) {
  return { ...fault, route: fault.route instanceof RegExp ? String(fault.route) : fault.route };
}
