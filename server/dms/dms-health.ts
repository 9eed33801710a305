import { dmsHealth, type DmsConnection, type DmsHealth } from './dms-connection.js';

/** What health shows about the dms: the last known state at once, or with `deep` a ping younger than a few seconds. */
export interface DmsHealthReport {
  read(options?: { deep?: boolean }): Promise<DmsHealth>;
}

export function createDmsHealthReport(connection: Pick<DmsConnection, 'status' | 'lastKnownStatus'>): DmsHealthReport {
  return {
    read: async ({ deep = false } = {}) => dmsHealth(deep ? await connection.status() : connection.lastKnownStatus()),
  };
}
