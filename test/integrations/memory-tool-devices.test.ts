/**
 * Claude's memory tool on two devices syncing one namespace through a real relay (issue 31
 * item 2): an edit made on one device reaches the other; an edit based on a version the
 * other device has since replaced is refused with "view again"; and when both devices edit
 * one version at the same moment (before either edit reached the other), the files
 * converge on one edit, the other is kept in history, and its writer is told on its next
 * view or edit. No edit is lost.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { namespaceKey, openMemory, type Memory } from '@zeromem/core';
import { issueToken, startRelay, type Relay } from '@zeromem/relay';
import { shareNamespace, type SharedNamespace } from '@zeromem/sync';
import { createMemoryTool, type ClaudeMemoryTool } from '@zeromem/tools';
import { afterEach, describe, expect, it } from 'vitest';

const SECRET = 'memory-tool-devices-secret-0123456789-abcdefghijklmnop';
const SHARED = { userId: 'alice', scope: 'claude' };
const FILE = '/memories/groceries.md';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zeromem-memtool-devices-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface DeviceTool {
  memory: Memory;
  share: SharedNamespace;
  tool: ClaudeMemoryTool;
}

/** A device: its own store on disk, sharing SHARED through the relay, with a memory tool session on it. */
async function device(relay: Relay, token: string): Promise<DeviceTool> {
  const memory = await openMemory({ name: 'device', directory: tempDir() });
  const share = await shareNamespace(memory, SHARED, { url: relay.url, token, WebSocketPolyfill: WebSocket, pollMs: 20, maxBackoffMs: 100 });
  closers.push(async () => {
    await share.close();
    await memory.close();
  });
  await share.synced;
  return { memory, share, tool: createMemoryTool(memory, { namespace: SHARED }) };
}

async function twoDevices(): Promise<[DeviceTool, DeviceTool]> {
  const relay = await startRelay({ secret: SECRET, dataDir: tempDir(), logLevel: 'silent', port: 0 });
  closers.push(() => relay.close());
  const token = await issueToken({ secret: SECRET, subject: 'alice', rooms: [namespaceKey(SHARED)], access: 'read-write', ttlSeconds: 3600 });
  return [await device(relay, token), await device(relay, token)];
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The file's text as a device's tool shows it (numbered lines dropped), or the error. */
async function text(device: DeviceTool): Promise<string> {
  const view = await device.tool.execute({ command: 'view', path: FILE });
  if (!view.startsWith("Here's the content")) return view;
  return view
    .split('\n')
    .slice(1)
    .map((line) => line.slice(line.indexOf('\t') + 1))
    .join('\n');
}

const arrived = (device: DeviceTool, expected: string) => until(async () => (await device.tool.files()).length > 0 && (await text(device)) === expected, `the file to read "${expected}"`);

describe("Claude's memory tool on two devices through a relay", { timeout: 60_000 }, () => {
  it('an edit reaches the other device; a stale edit there is refused with "view again", then redone', async () => {
    const [laptop, phone] = await twoDevices();
    expect(await laptop.tool.execute({ command: 'create', path: FILE, file_text: 'milk\neggs' })).toBe(`File created successfully at: ${FILE}`);
    await arrived(phone, 'milk\neggs');
    expect(await laptop.tool.execute({ command: 'str_replace', path: FILE, old_str: 'milk', new_str: 'oat milk' })).toMatch(/^The memory file has been edited/);
    await until(async () => (await phone.tool.history(FILE)).length === 2, 'the edit to reach the phone');
    // The phone's session last saw "milk\neggs": its edit is refused, nothing written.
    expect(await phone.tool.execute({ command: 'insert', path: FILE, insert_line: 2, insert_text: 'bread' })).toMatch(/was changed by another agent or device since you last viewed it/);
    expect(await text(phone)).toBe('oat milk\neggs');
    expect(await phone.tool.execute({ command: 'insert', path: FILE, insert_line: 2, insert_text: 'bread' })).toBe(`The file ${FILE} has been edited.`);
    await arrived(laptop, 'oat milk\neggs\nbread');
  });

  it('both devices edit one version at the same moment: they converge on one edit, the other is in history and its writer is told', async () => {
    const [laptop, phone] = await twoDevices();
    await laptop.tool.execute({ command: 'create', path: FILE, file_text: 'milk\neggs' });
    await arrived(phone, 'milk\neggs');
    expect(await text(laptop)).toBe('milk\neggs');
    // Both edit before either edit reaches the other device.
    laptop.share.disconnect();
    phone.share.disconnect();
    expect(await laptop.tool.execute({ command: 'insert', path: FILE, insert_line: 2, insert_text: 'bread' })).toBe(`The file ${FILE} has been edited.`);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the phone's edit is the later one
    expect(await phone.tool.execute({ command: 'insert', path: FILE, insert_line: 0, insert_text: 'apples' })).toBe(`The file ${FILE} has been edited.`);
    laptop.share.connect();
    phone.share.connect();
    await until(async () => (await laptop.tool.history(FILE)).length === 3 && (await phone.tool.history(FILE)).length === 3, 'both devices to hold all three versions');
    const versions = await laptop.tool.history(FILE);
    expect(versions.map((v) => v.text)).toEqual(['milk\neggs', 'milk\neggs\nbread', 'apples\nmilk\neggs']);
    expect(await phone.tool.history(FILE)).toEqual(versions);
    // The laptop's session is told its edit lost, on its next edit and on its next view.
    expect(await laptop.tool.execute({ command: 'str_replace', path: FILE, old_str: 'eggs', new_str: 'eggs\nbread' })).toMatch(/was changed by another agent or device since you last viewed it/);
    const view = await laptop.tool.execute({ command: 'view', path: FILE });
    expect(view).toMatch(/^Note: your last edit of \/memories\/groceries\.md is not in it: another agent or device edited the same version at the same time/);
    expect(view).toContain('     1\tapples');
    // Redone on what the file says now, both edits are in it on both devices.
    expect(await laptop.tool.execute({ command: 'insert', path: FILE, insert_line: 3, insert_text: 'bread' })).toBe(`The file ${FILE} has been edited.`);
    await arrived(phone, 'apples\nmilk\neggs\nbread');
    expect(await text(phone)).not.toMatch(/^Note/);
  });
});
