// The Configurations panel of the model page in headless Chromium against a real server, on a model of two cubes:
// the right one bound green in the model, and two configurations painting the left one red and blue (made through
// the API). Switching between them in the panel turns the left cube red, blue and back to unbound with the right
// cube's green pixels where they were and no new request for the model's GLB; the address names the configuration
// shown and opens on it; a bind while a configuration is shown goes to it, not to the model; Apply makes a
// configuration's bindings the model's, which the view then shows with no configuration shown; a rename form stays
// open with what was typed while the list is drawn again under it; and the two configurations' pictures differ.
// Only the tests of what an address opens build the model page afresh; the others share the page as they find it,
// brought back to the model's own paint on the Configurations tab.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ModelRecord } from './support/catalog-client.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { countPixels, decodePng, isBlue, isGreen, isRed, pixelAt, type Pixels } from './support/pixels.ts';
import { openViewerSession, SHOTS, type ViewerSession } from './support/viewer-session.ts';

const TOKEN = 'e2e-configurations-viewer-token-0123456789';
/** How long a repaint may take to reach the canvas on a busy machine. */
const PAINT_WAIT_MS = 20_000;

interface Configuration {
  id: string;
  name: string;
  binding_count: number;
  thumbnail_url: string | null;
}

let session: ViewerSession;
let model: ModelRecord;
let left: string;
let right: string;
const materials: Record<'red' | 'blue' | 'green', number> = { red: 0, blue: 0, green: 0 };
const configurations: Record<'red' | 'blue', Configuration> = {} as Record<'red' | 'blue', Configuration>;
/** The 404 answers the page met since the last {@link assertNoErrors}: `<resource type> <method> <path>`. */
const notFound: string[] = [];
/** The URLs of every GLB the page asked for, in order. */
const glbRequests: string[] = [];

/** Calls the API with a JSON body and returns the answer's `data`, failing on an unexpected status. */
async function api<T>(path: string, method: string, body?: unknown, status = 200): Promise<T> {
  const answer = await session.client.call(path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  assert.equal(answer.status, status, `${method} ${path}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

/**
 * Fails on any error the page met but the 404s expected: a configuration's picture drawn again between the list's
 * read and the image's load (its old file is gone; the panel reads the list again), and `allowed` ones. Forgets
 * what it checked.
 */
function assertNoErrors(allowed: RegExp[] = []): void {
  const unexpected = notFound.filter(
    (answer) => !answer.startsWith('image GET ') && !allowed.some((pattern) => pattern.test(answer)),
  );
  assert.deepEqual(unexpected, [], 'no unexpected 404');
  const errors = session.pageErrors.filter(
    (message) => !message.startsWith('Failed to load resource: the server responded with a status of 404'),
  );
  assert.deepEqual(errors, []);
  notFound.length = 0;
  session.pageErrors.length = 0;
}

/** The canvas as drawn now. */
async function viewPixels(page: Page): Promise<Pixels> {
  return decodePng(await page.locator('.viewer canvas').screenshot());
}

/** Takes pictures of the view until `ready` holds for one (the repaint reached the canvas), and returns it. */
async function untilView(page: Page, ready: (pixels: Pixels) => boolean, what: string): Promise<Pixels> {
  const deadline = Date.now() + PAINT_WAIT_MS;
  for (;;) {
    const pixels = await viewPixels(page);
    if (ready(pixels)) return pixels;
    assert.ok(
      Date.now() < deadline,
      `${what}: red ${countPixels(pixels, isRed)}, blue ${countPixels(pixels, isBlue)}, green ${countPixels(pixels, isGreen)}`,
    );
    await page.waitForTimeout(200);
  }
}

/** The positions of the pixels `predicate` picks, as `x,y` keys. */
function pixelSet(pixels: Pixels, predicate: (rgb: [number, number, number]) => boolean): Set<string> {
  const found = new Set<string>();
  for (let y = 0; y < pixels.height; y += 1) {
    for (let x = 0; x < pixels.width; x += 1) if (predicate(pixelAt(pixels, x, y))) found.add(`${x},${y}`);
  }
  return found;
}

/** Fails unless the green pixels (the right cube) of `b` are those of `a`, to a few along edges. */
function assertGreenStays(a: Pixels, b: Pixels, what: string): void {
  const before = pixelSet(a, isGreen);
  const after = pixelSet(b, isGreen);
  assert.ok(before.size > 500, `the right cube shows green (${before.size} pixels)`);
  let moved = 0;
  for (const key of before) if (!after.has(key)) moved += 1;
  for (const key of after) if (!before.has(key)) moved += 1;
  assert.ok(moved < before.size * 0.02, `${what}: ${moved} of ${before.size} green pixels changed`);
}

/** A cube's share of the canvas: how many pixels a painted left cube shows at the least. */
function painted(pixels: Pixels, predicate: (rgb: [number, number, number]) => boolean): boolean {
  return countPixels(pixels, predicate) > 500;
}

/** Opens the model page at `query` (through the catalog, so the page is built afresh) on the Configurations tab. */
async function openModel(query = ''): Promise<Page> {
  const { page, server } = session;
  await page.goto(`${server.baseUrl}/#/`);
  await page.goto(`${server.baseUrl}/#/models/${model.id}${query}`);
  try {
    // The pictures of the model and its configurations are drawn on the server's CPU meanwhile, beside the other
    // suites of a full run on two cores: allow for them as the other suites do for a first view.
    await page.locator('.viewer[data-state="ready"] canvas').waitFor({ timeout: 240_000 });
  } catch (error) {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'configurations-not-ready.png') });
    throw error;
  }
  await page.getByRole('tab', { name: 'Configurations' }).click();
  await page.locator('.configuration-row').nth(2).waitFor();
  return page;
}

/** The material bound to `groupId`, by the model or (with `configurationId`) as that configuration shows it. */
async function boundMaterial(groupId: string, configurationId?: string): Promise<number | undefined> {
  const found = await api<{ group_id: string; material: { id: number } }[]>(
    '/api/v1/groups/materials',
    'POST',
    {
      group_ids: [groupId],
      ...(configurationId ? { configuration_id: configurationId } : {}),
    },
  );
  return found.find((entry) => entry.group_id === groupId)?.material.id;
}

/**
 * The model page as the tests share it: opened once (again only after a test built it afresh from an address), on
 * the Configurations tab, showing no configuration, so each test starts from the model's own paint.
 */
async function sharedModelPage(): Promise<Page> {
  const { page } = session;
  if (!new URL(page.url()).hash.startsWith(`#/models/${model.id}`)) return openModel();
  await page.getByRole('tab', { name: 'Configurations' }).click();
  const none = page.locator('.configurations-section').getByRole('button', { name: 'Show no configuration' });
  if ((await none.getAttribute('aria-pressed')) !== 'true') await none.click();
  await page.locator('.viewer[data-painted-configuration=""]').waitFor();
  return page;
}

void describe('the Configurations panel', { timeout: 15 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    session = await openViewerSession('configurations-viewer', TOKEN, {
      consoleErrors: true,
      env: { THUMBNAIL_REFRESH_DELAY_MS: '0' },
    });
    const uploaded = await session.client.upload({
      name: 'pair.glb',
      bytes: new Uint8Array(await cubesGlb(['Left', 'Right'])),
    });
    model = await session.client.waitCompleted(uploaded.id);
    const parts = await api<{ group_id: string; name: string }[]>(`/api/models/${model.id}/parts`, 'GET');
    left = parts.find((part) => part.name === 'Left')!.group_id;
    right = parts.find((part) => part.name === 'Right')!.group_id;
    assert.ok(left && right, JSON.stringify(parts));
    const colours = { red: [255, 0, 0], blue: [0, 0, 255], green: [0, 200, 0] } as const;
    for (const [name, [diffuse_r, diffuse_g, diffuse_b]] of Object.entries(colours)) {
      const made = await api<{ id: number }>(
        '/api/v1/materials',
        'POST',
        { name: name[0].toUpperCase() + name.slice(1), diffuse_r, diffuse_g, diffuse_b },
        201,
      );
      materials[name as keyof typeof materials] = made.id;
    }
    await api(`/api/v1/materials/${materials.green}/bindings`, 'POST', { group_ids: [right] });
    const base = `/api/models/${model.id}/configurations`;
    for (const colour of ['red', 'blue'] as const) {
      const made = await api<Configuration>(base, 'POST', { name: `${colour} left` }, 201);
      await api(`${base}/${made.id}/bindings`, 'PUT', {
        bindings: [{ group_id: left, material_id: materials[colour] }],
      });
      configurations[colour] = made;
    }
    // Their pictures are drawn after they are made; wait for both.
    const deadline = Date.now() + 60_000;
    for (const colour of ['red', 'blue'] as const) {
      for (;;) {
        const read = await api<Configuration>(`${base}/${configurations[colour].id}`, 'GET');
        configurations[colour] = read;
        if (read.thumbnail_url && read.binding_count === 1) break;
        assert.ok(Date.now() < deadline, `the picture of ${read.name} is drawn within a minute`);
        await new Promise((done) => setTimeout(done, 250));
      }
    }
    session.page.on('response', (response) => {
      const request = response.request();
      const path = new URL(response.url()).pathname;
      if (response.status() === 404) notFound.push(`${request.resourceType()} ${request.method()} ${path}`);
    });
    session.page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith('.glb')) glbRequests.push(request.url());
    });
  });

  after(() => session?.close());

  void test('the address opens on a configuration and the panel marks it shown', async () => {
    const page = await openModel(`?configuration=${configurations.blue.id}`);
    await page.locator(`.viewer[data-painted-configuration="${configurations.blue.id}"]`).waitFor();
    await untilView(page, (pixels) => painted(pixels, isBlue) && painted(pixels, isGreen), 'blue left');
    const panel = page.locator('.configurations-section');
    const row = panel.locator(`.configuration-row[data-configuration-id="${configurations.blue.id}"]`);
    assert.equal(await row.getAttribute('aria-current'), 'true');
    assert.equal(
      await row.getByRole('button', { name: 'Show “blue left”' }).getAttribute('aria-pressed'),
      'true',
    );
    assert.equal(await panel.locator('.configuration-row[aria-current="true"]').count(), 1);
    for (const name of ['Apply', 'Rename', 'Delete'])
      await row.getByRole('button', { name: `${name} “blue left”` }).waitFor();
    assertNoErrors();
  });

  void test('an address naming a configuration deleted since opens on the present bindings', async () => {
    const gone = '00000000-0000-4000-8000-000000000000';
    const page = await openModel(`?configuration=${gone}`);
    await page.locator('.viewer[data-painted-configuration=""]').waitFor();
    await untilView(
      page,
      (pixels) => painted(pixels, isGreen) && !painted(pixels, isRed) && !painted(pixels, isBlue),
      'the model as bound',
    );
    assert.doesNotMatch(page.url(), /configuration=/);
    const none = page.getByRole('button', { name: 'Show no configuration' });
    assert.equal(await none.getAttribute('aria-pressed'), 'true');
    // The lookup's 404 is how the page learns the configuration is gone.
    assert.ok(notFound.includes('fetch POST /api/v1/groups/materials'), notFound.join('; '));
    assertNoErrors([/^fetch POST \/api\/v1\/groups\/materials$/]);
  });

  void test('switching repaints the left cube red, blue and back, the right one stays, the GLB is not read again', async () => {
    const page = await sharedModelPage();
    const none = await untilView(
      page,
      (pixels) => painted(pixels, isGreen) && !painted(pixels, isRed) && !painted(pixels, isBlue),
      'the model as bound: right green, left unpainted',
    );
    const loads = glbRequests.length;
    assert.ok(loads > 0, 'the model was read once');
    const panel = page.locator('.configurations-section');
    assert.equal(
      await panel.getByRole('button', { name: 'Show no configuration' }).getAttribute('aria-pressed'),
      'true',
    );

    await panel.getByRole('button', { name: 'Show “red left”' }).click();
    await page.locator(`.viewer[data-painted-configuration="${configurations.red.id}"]`).waitFor();
    const red = await untilView(page, (pixels) => painted(pixels, isRed), 'the left cube red');
    assert.equal(countPixels(red, isBlue), 0, 'nothing blue');
    assertGreenStays(none, red, 'red left');
    assert.match(page.url(), new RegExp(`\\?configuration=${configurations.red.id}$`));
    if (SHOTS) await panel.screenshot({ path: join(SHOTS, 'configurations-panel.png') });
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'configurations-red.png') });

    await panel.getByRole('button', { name: 'Show “blue left”' }).click();
    await page.locator(`.viewer[data-painted-configuration="${configurations.blue.id}"]`).waitFor();
    const blue = await untilView(
      page,
      (pixels) => painted(pixels, isBlue) && !painted(pixels, isRed),
      'the left cube blue',
    );
    assertGreenStays(none, blue, 'blue left');
    assert.match(page.url(), new RegExp(`\\?configuration=${configurations.blue.id}$`));
    const row = panel.locator(`.configuration-row[data-configuration-id="${configurations.blue.id}"]`);
    assert.equal(await row.getAttribute('aria-current'), 'true');

    await panel.getByRole('button', { name: 'Show “red left”' }).click();
    await untilView(page, (pixels) => painted(pixels, isRed) && !painted(pixels, isBlue), 'red again');
    await panel.getByRole('button', { name: 'Show no configuration' }).click();
    await page.locator('.viewer[data-painted-configuration=""]').waitFor();
    const back = await untilView(
      page,
      (pixels) => !painted(pixels, isRed) && !painted(pixels, isBlue),
      'the left cube unpainted again',
    );
    assertGreenStays(none, back, 'none');
    assert.doesNotMatch(page.url(), /configuration=/);
    assert.deepEqual(glbRequests.slice(loads), [], 'no GLB was asked for again');
    assertNoErrors();
  });

  void test('a bind while a configuration is shown writes to it, not to the model', async () => {
    const page = await sharedModelPage();
    await page.locator('.configurations-section').getByRole('button', { name: 'Show “red left”' }).click();
    await page.locator(`.viewer[data-painted-configuration="${configurations.red.id}"]`).waitFor();
    await untilView(page, (pixels) => painted(pixels, isRed) && painted(pixels, isGreen), 'red left');
    await page.getByRole('tab', { name: 'Parts' }).click();
    await page.locator(`.part-button[data-group-id="${right}"]`).click();
    await page.locator(`.material-button[data-material-id="${materials.blue}"]`).click();
    await page.getByRole('button', { name: 'Bind selected parts to “Blue”' }).click();
    await page.getByRole('button', { name: 'Clear selection' }).click();
    await untilView(
      page,
      (pixels) => painted(pixels, isRed) && painted(pixels, isBlue) && !painted(pixels, isGreen),
      'the right cube blue in the red configuration',
    );
    const base = `/api/models/${model.id}/configurations`;
    const read = await api<Configuration>(`${base}/${configurations.red.id}`, 'GET');
    assert.equal(read.binding_count, 2, 'the configuration binds both cubes now');
    assert.equal(await boundMaterial(right), materials.green, 'the model still binds it green');
    assert.equal(await boundMaterial(right, configurations.red.id), materials.blue);
    // Put the configuration back for any test after this one.
    await api(`${base}/${configurations.red.id}/bindings`, 'DELETE', { group_ids: [right] });
    assertNoErrors();
  });

  void test('create from current paint, rename and delete from the panel', async () => {
    const page = await sharedModelPage();
    const panel = page.locator('.configurations-section');
    await panel.getByRole('button', { name: 'Create from current paint' }).click();
    await panel.getByLabel('Name of the new configuration').fill('green right');
    await panel.getByRole('button', { name: 'Create', exact: true }).click();
    await panel.getByRole('button', { name: 'Show “green right”' }).waitFor();
    const base = `/api/models/${model.id}/configurations`;
    const listed = await api<Configuration[]>(base, 'GET');
    const made = listed.find((one) => one.name === 'green right');
    assert.equal(made?.binding_count, 1, 'it holds the model’s one binding');

    await panel.getByRole('button', { name: 'Rename “green right”' }).click();
    await panel.getByLabel('New name of “green right”').fill('all green');
    await panel.getByRole('button', { name: 'Save', exact: true }).click();
    await panel.getByRole('button', { name: 'Show “all green”' }).waitFor();
    assert.equal((await api<Configuration>(`${base}/${made!.id}`, 'GET')).name, 'all green');

    page.once('dialog', (dialog) => void dialog.accept());
    await panel.getByRole('button', { name: 'Delete “all green”' }).click();
    await panel.getByRole('button', { name: 'Show “all green”' }).waitFor({ state: 'detached' });
    assert.deepEqual(
      (await api<Configuration[]>(base, 'GET')).map(({ name }) => name),
      ['red left', 'blue left'],
    );
    assertNoErrors();
  });

  void test('a rename form keeps what was typed while the list is drawn again under it', async () => {
    const page = await sharedModelPage();
    const panel = page.locator('.configurations-section');
    await panel.getByRole('button', { name: 'Rename “red left”' }).click();
    const input = panel.getByLabel('New name of “red left”');
    await input.fill('red left, half typed');
    // Another client renames the other configuration: its event makes the panel read and draw the list again.
    const base = `/api/models/${model.id}/configurations`;
    await api(`${base}/${configurations.blue.id}`, 'PATCH', { name: 'blue left, elsewhere' });
    await panel.getByRole('button', { name: 'Show “blue left, elsewhere”' }).waitFor();
    assert.equal(await input.inputValue(), 'red left, half typed', 'the form is still open with its text');
    await panel.getByRole('button', { name: 'Cancel', exact: true }).click();
    await panel.getByRole('button', { name: 'Rename “red left”' }).waitFor();
    await api(`${base}/${configurations.blue.id}`, 'PATCH', { name: 'blue left' });
    await panel.getByRole('button', { name: 'Show “blue left”' }).waitFor();
    assertNoErrors();
  });

  void test('Apply makes the configuration’s bindings the model’s, shown with no configuration active', async () => {
    const page = await sharedModelPage();
    await untilView(
      page,
      (pixels) => painted(pixels, isGreen) && !painted(pixels, isRed) && !painted(pixels, isBlue),
      'the model as bound: right green, left unpainted',
    );
    const loads = glbRequests.length;
    const panel = page.locator('.configurations-section');
    await panel.getByRole('button', { name: 'Apply “red left”' }).click();
    await untilView(
      page,
      (pixels) => painted(pixels, isRed) && painted(pixels, isGreen) && !painted(pixels, isBlue),
      'the left cube red in the model’s own paint',
    );
    assert.equal(
      await panel.getByRole('button', { name: 'Show no configuration' }).getAttribute('aria-pressed'),
      'true',
    );
    assert.equal(await page.locator('.viewer').getAttribute('data-painted-configuration'), '');
    assert.doesNotMatch(page.url(), /configuration=/);
    assert.equal(await boundMaterial(left), materials.red, 'the model binds the left cube red');
    assert.equal(await boundMaterial(right), materials.green, 'a part it does not bind keeps its material');
    assert.deepEqual(glbRequests.slice(loads), [], 'no GLB was asked for again');

    // Give the model its own paint back for any test after this one, through the page so its view follows.
    await page.getByRole('tab', { name: 'Parts' }).click();
    await page.locator(`.part-button[data-group-id="${left}"]`).click();
    await page.getByRole('button', { name: 'Unbind selected parts' }).click();
    await page.getByRole('button', { name: 'Clear selection' }).click();
    await untilView(
      page,
      (pixels) => painted(pixels, isGreen) && !painted(pixels, isRed),
      'the left cube unpainted again',
    );
    assert.equal(await boundMaterial(left), undefined, 'the model binds the left cube no more');
    assertNoErrors();
  });

  void test('a read token sees and switches configurations but has no control that writes', async () => {
    const { token } = await api<{ token: string }>(
      '/api/tokens',
      'POST',
      { name: 'Configurations reader', scope: 'read' },
      201,
    );
    const browser = session.page.context().browser();
    assert.ok(browser);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((saved) => localStorage.setItem('vitrine.apiToken', saved), token);
    try {
      const reader = await context.newPage();
      await reader.goto(`${session.server.baseUrl}/#/models/${model.id}`);
      await reader.getByRole('tab', { name: 'Configurations' }).click();
      const panel = reader.locator('.configurations-section');
      await panel.getByRole('button', { name: 'Create from current paint' }).waitFor({ state: 'hidden' });
      await panel.getByRole('button', { name: 'Show “red left”' }).click();
      await reader.locator(`.viewer[data-painted-configuration="${configurations.red.id}"]`).waitFor();
      for (const name of ['Apply', 'Rename', 'Delete'])
        assert.equal(await panel.getByRole('button', { name: `${name} “red left”` }).count(), 0, name);
    } finally {
      await context.close();
    }
  });

  void test('the two configurations’ pictures differ', async () => {
    const pictures = await Promise.all(
      (['red', 'blue'] as const).map(async (colour) => {
        const url = new URL(configurations[colour].thumbnail_url!, session.server.baseUrl);
        const answer = await session.client.call(url.pathname + url.search);
        assert.equal(answer.status, 200, `${colour}: ${url}`);
        return Buffer.from(await answer.arrayBuffer());
      }),
    );
    assert.ok(pictures[0].length > 0 && pictures[1].length > 0);
    assert.notDeepEqual(
      pictures[0],
      pictures[1],
      'the red and the blue configuration have different pictures',
    );
  });
});
