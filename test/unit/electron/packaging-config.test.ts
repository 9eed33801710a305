import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { PROJECT_ROOT } from '../../../server/project-paths.js';

// The packaged build cannot run here (no Electron binary), so the config is checked offline:
// against electron-builder's own schema, and against the files and icons it names.

const config = YAML.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'build', 'electron-builder.yml'), 'utf8')) as Record<
  string,
  unknown
> & {
  files: string[];
  linux: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
  mac: { target: string[]; icon: string };
  electronFuses: Record<string, boolean>;
  extraResources: Array<{ from: string; to: string }>;
};
const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  main: string;
  scripts: Record<string, string>;
  allowScripts?: Record<string, boolean>;
};

function pngSize(file: string): { width: number; height: number } {
  const bytes = fs.readFileSync(path.join(PROJECT_ROOT, file));
  assert.equal(bytes.subarray(1, 4).toString('ascii'), 'PNG', `${file} is a PNG`);
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

describe('desktop packaging config', () => {
  test("validates against electron-builder's own configuration schema", () => {
    const require = createRequire(import.meta.url);
    const schema = JSON.parse(fs.readFileSync(require.resolve('app-builder-lib/scheme.json'), 'utf8')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    assert.equal(validate(config), true, JSON.stringify(validate.errors, null, 2));
  });

  test('builds AppImage and deb, nsis, and dmg', () => {
    assert.deepEqual(config.linux.target, ['AppImage', 'deb']);
    assert.deepEqual(config.win.target, ['nsis']);
    assert.deepEqual(config.mac.target, ['dmg']);
    assert.equal(config.productName, 'dms-rules');
    assert.match(String(config.appId), /^[a-z0-9.-]+$/);
  });

  test('packs the built server, shell, UI, example rules and package.json, and the main entry is among them', () => {
    for (const entry of [
      'package.json',
      'dist/server/**/*',
      'dist/electron/**/*',
      'dist/renderer/**/*',
      'rules.d/**/*',
    ]) {
      assert.ok(config.files.includes(entry), entry);
    }
    assert.equal(pkg.main, 'dist/electron/main.js');
  });

  test('the fuses shut the doors a packaged app does not need', () => {
    assert.equal(config.electronFuses.runAsNode, false);
    assert.equal(config.electronFuses.enableNodeOptionsEnvironmentVariable, false);
    assert.equal(config.electronFuses.enableNodeCliInspectArguments, false);
    assert.equal(config.electronFuses.onlyLoadAppFromAsar, true);
  });

  test('icons exist at the sizes each platform needs', () => {
    for (const size of [16, 32, 48, 64, 128, 256, 512]) {
      assert.deepEqual(pngSize(`${config.linux.icon}/${size}x${size}.png`), { width: size, height: size });
    }
    assert.ok(pngSize(config.mac.icon).width >= 512, 'macOS needs at least 512 px');
    assert.ok(pngSize(config.win.icon).width >= 256, 'Windows needs at least 256 px');
    const tray = config.extraResources.find((r) => r.to === 'tray.png');
    assert.ok(tray && pngSize(tray.from).width === 32);
  });

  test('npm run desktop fetches the Electron binary on demand and builds first; npm run dist builds first', () => {
    assert.match(
      pkg.scripts.desktop,
      /^node node_modules\/electron\/install\.js && npm run build --silent && electron \.$/,
    );
    // Cleaned first: a dist/ left from an older build could hold code that no longer ships (build/clean-dist.mjs).
    assert.match(
      pkg.scripts.dist,
      /^node build\/clean-dist\.mjs && npm run build --silent && electron-builder --config build\/electron-builder\.yml/,
    );
  });

  test('installing never downloads the Electron binary (a fresh machine without that network must install)', () => {
    assert.equal(pkg.allowScripts?.electron, false);
  });
});
