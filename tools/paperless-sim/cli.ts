// `npm run dms-sim -- --port 8000 --documents 10000 --seed 7 --token <hex> --profile 2.20`: a standalone Paperless-ngx simulator.
import { parseArgs } from 'node:util';
import { createConsoleLogger } from '../../server/log.js';
import { DEFAULT_PROFILE, resolveProfile, type SimProfileName } from '../../server/dms/demo/profiles.js';
import { startSimulator } from './simulator.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    host: { type: 'string', default: '127.0.0.1' },
    documents: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    token: { type: 'string' },
    'no-fixtures': { type: 'boolean', default: false },
    profile: { type: 'string', default: DEFAULT_PROFILE },
  },
});
// An unknown name throws, naming the known ones.
const profile = resolveProfile(values.profile as SimProfileName);

const count = Number(values.documents);
const sim = await startSimulator({
  host: values.host,
  port: Number(values.port),
  token: values.token,
  seedDocuments: !values['no-fixtures'],
  profile,
  generate: count > 0 ? { count, seed: Number(values.seed) } : undefined,
  logger: createConsoleLogger(),
});
process.stdout.write(
  `dms simulator (Paperless-ngx ${profile.release}, API versions ${profile.apiVersions.join(', ')}) listening on ${sim.url}\n` +
    `token: ${sim.token}\n` +
    `documents: ${sim.store.documents.size}\n` +
    `try: curl -H "Authorization: Token ${sim.token}" ${sim.url}/api/documents/?page_size=1\n`,
);
// Closing the server lets the process end by itself.
const stop = () => void sim.close();
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
