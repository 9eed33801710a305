import path from 'node:path';
import { app, BrowserWindow, clipboard, dialog, Menu, session, shell, Tray } from 'electron';
import { limitHeapGrowth } from '../server/heap-growth.js';
import { createConsoleLogger } from '../server/log.js';
import { createFileLogger, serviceLogFile } from '../server/log-file.js';
import { logUncaught } from '../server/process-hooks.js';
import { EXAMPLE_RULES_DIR, PROJECT_ROOT } from '../server/project-paths.js';
import { createDesktopApp } from './desktop-app.js';
import { startDesktopServer } from './desktop-server.js';

// The only file that imports `electron`: everything else takes the API as a parameter and is unit-tested.
limitHeapGrowth(); // the service runs in this process
// The desktop app has no console a person reads: the log goes to a rotated file in the data dir too (File → Open log).
const logger = createFileLogger(serviceLogFile(path.join(app.getPath('userData'), 'data')), {
  also: createConsoleLogger(),
});
logUncaught(logger);

void createDesktopApp(
  { app, BrowserWindow, Tray, Menu, shell, clipboard, dialog, session },
  {
    logger,
    // Packaged, the tray icon is an extra resource next to app.asar (build/ is not packed into the app).
    iconPath: app.isPackaged
      ? path.join(process.resourcesPath, 'tray.png')
      : path.join(PROJECT_ROOT, 'build', 'icons', 'tray.png'),
    startServer: (userDataDir) => startDesktopServer({ userDataDir, examplesDir: EXAMPLE_RULES_DIR, logger }),
  },
);
