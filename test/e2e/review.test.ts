// Annotations and saved views end to end: real server, real headless Chromium. A pin added on the red cube sits
// where it was clicked and is still there after a reload; a view saved with the red cube hidden and an X section
// comes back after a reload, by its Restore button and by its link; a share link made with annotations shows the
// pin and the list with no edit control; the BCF export holds the pin's topic, and a BCF of another tool's topics (a
// camera only, no viewpoint) comes in as a saved view and an unpinned note, the card saying so; a read token's page
// shows every edit control read-only from the start.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { unzipBcf } from '../../src/review/bcf/unzip-bcf.ts';
import { writeZip } from '../../src/writers/write-zip.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { countPixels, decodePng, isGreen, isRed, pixelAt, type Pixels } from './support/pixels.ts';
import { openViewerSession, SHOTS, type ViewerSession } from './support/viewer-session.ts';

const TOKEN = 'e2e-review-token-0123456789';
const NOTE = 'Check the chamfer on this face';
/** A pin is drawn within this many pixels of the point it was clicked at. */
const PIN_TOLERANCE_PX = 3;

let session: ViewerSession;
let page: Page;
const run: { modelId?: string; red?: string; viewId?: string } = {};

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return session.client.call(path, {
    method: init.method,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    headers: init.body === undefined ? {} : { 'Content-Type': 'application/json' },
  });
}

/** Uploads a red and a green cube (materials bound) and returns the model id and the red cube's group id. */
async function uploadPaintedCubes(): Promise<{ id: string; red: string }> {
  const bytes = new Uint8Array(await cubesGlb(['Red cube', 'Green cube']));
  const model = await session.client.upload({ name: 'cubes.glb', bytes }, { name: 'Review cubes' });
  await session.client.waitCompleted(model.id);
  const parts = (
    (await (await api(`/api/models/${model.id}/parts`)).json()) as {
      data: { group_id: string; name: string }[];
    }
  ).data;
  const groupOf = (name: string): string => {
    const part = parts.find((entry) => entry.name === name);
    assert.ok(part, `part ${name} exists`);
    return part.group_id;
  };
  for (const [name, colour] of [
    ['Red cube', { diffuse_r: 230, diffuse_g: 20, diffuse_b: 20 }],
    ['Green cube', { diffuse_r: 20, diffuse_g: 200, diffuse_b: 30 }],
  ] as const) {
    const material = await api('/api/v1/materials', { method: 'POST', body: { name, ...colour } });
    const materialId = ((await material.json()) as { data: { id: number } }).data.id;
    const bound = await api(`/api/v1/materials/${materialId}/bindings`, {
      method: 'POST',
      body: { group_ids: [groupOf(name)] },
    });
    assert.equal(bound.status, 200);
  }
  return { id: model.id, red: groupOf('Red cube') };
}

/**
 * A BCF 3.0 file as another tool writes it: a topic whose viewpoint has a camera and no component (a saved view),
 * and a topic with no viewpoint and two comments (an unpinned note).
 */
function otherToolBcf(): Buffer {
  const text = (value: string) => new TextEncoder().encode(value);
  const view = '6c1a3c1e-4a51-4d0e-9a57-0a5e1b6f3a01';
  const note = '6c1a3c1e-4a51-4d0e-9a57-0a5e1b6f3a02';
  const topic = (guid: string, title: string, inner: string) =>
    text(`<?xml version="1.0" encoding="UTF-8"?>
<Markup><Topic Guid="${guid}" TopicType="Issue" TopicStatus="Open"><Title>${title}</Title>
<CreationDate>2026-05-04T10:00:00Z</CreationDate><CreationAuthor>site@example.com</CreationAuthor>${inner}</Topic></Markup>`);
  const comment = (guid: string, said: string) =>
    `<Comment Guid="${guid}"><Date>2026-05-04T10:05:00Z</Date><Author>site@example.com</Author><Comment>${said}</Comment></Comment>`;
  return Buffer.from(
    writeZip(
      [
        { name: 'bcf.version', data: text('<Version VersionId="3.0"/>') },
        {
          name: `${view}/markup.bcf`,
          data: topic(
            view,
            'Seen from the south',
            `<Viewpoints><ViewPoint Guid="${view}"><Viewpoint>v.bcfv</Viewpoint></ViewPoint></Viewpoints>`,
          ),
        },
        {
          name: `${view}/v.bcfv`,
          data: text(`<VisualizationInfo Guid="${view}"><PerspectiveCamera>
<CameraViewPoint><X>0</X><Y>-6</Y><Z>2</Z></CameraViewPoint><CameraDirection><X>0</X><Y>1</Y><Z>-0.3</Z></CameraDirection>
<CameraUpVector><X>0</X><Y>0</Y><Z>1</Z></CameraUpVector><FieldOfView>60</FieldOfView><AspectRatio>1.5</AspectRatio>
</PerspectiveCamera></VisualizationInfo>`),
        },
        {
          name: `${note}/markup.bcf`,
          data: topic(
            note,
            'Door swing unclear',
            `<Description>Check with the architect</Description><Comments>${comment(
              '6c1a3c1e-4a51-4d0e-9a57-0a5e1b6f3a03',
              'Which way does it open?',
            )}${comment('6c1a3c1e-4a51-4d0e-9a57-0a5e1b6f3a04', 'Inward, as drawn.')}</Comments>`,
          ),
        },
      ],
      { deflate: true },
    ),
  );
}

/** Opens `url` and waits until the view has drawn its final level with the bound paint. */
async function openView(where: Page, url: string): Promise<void> {
  await where.goto(url);
  await where.locator('.viewer[data-state="ready"]').waitFor({ timeout: 120_000 });
  await where.waitForTimeout(400);
}

/** The view's canvas as pixels, pins and forms included (they are part of what the person sees). */
async function viewPixels(where: Page, name: string): Promise<Pixels> {
  const png = await where.locator('.viewer canvas').screenshot();
  if (SHOTS) {
    await writeFile(join(SHOTS, `review-${name}.png`), png);
    await where.screenshot({ path: join(SHOTS, `review-${name}-page.png`) });
  }
  return decodePng(png);
}

/** The middle of the red pixels: a point on the red cube's surface (its outline on screen is convex). */
function redCentre(pixels: Pixels): { x: number; y: number } {
  let sumX = 0;
  let sumY = 0;
  const count = countPixels(pixels, (rgb, x, y) => {
    if (!isRed(rgb)) return false;
    sumX += x;
    sumY += y;
    return true;
  });
  assert.ok(count > 1000, `the red cube is drawn (${count} red pixels)`);
  return { x: Math.round(sumX / count), y: Math.round(sumY / count) };
}

/** True when the model under the pin (drawn with the pins hidden for a moment) is the red cube. */
async function pinOnRed(where: Page): Promise<boolean> {
  const centre = await pinCentre(where);
  await where.locator('.pin-layer').evaluate((layer: HTMLElement) => (layer.style.visibility = 'hidden'));
  const pixels = await decodePng(await where.locator('.viewer canvas').screenshot());
  await where.locator('.pin-layer').evaluate((layer: HTMLElement) => (layer.style.visibility = ''));
  return isRed(pixelAt(pixels, Math.round(centre.x), Math.round(centre.y)));
}

/** Opens the panel tab `name` beside the view (the panels share the place beside it). */
async function showTab(where: Page, name: string): Promise<void> {
  await where.getByRole('tab', { name, exact: true }).click();
}

/** Where the centre of the pin of `where`'s first annotation is, relative to the canvas. */
async function pinCentre(where: Page): Promise<{ x: number; y: number }> {
  const pin = where.locator('.pin').first();
  await pin.waitFor();
  const [box, canvas] = await Promise.all([pin.boundingBox(), where.locator('.viewer canvas').boundingBox()]);
  assert.ok(box && canvas);
  return { x: box.x + box.width / 2 - canvas.x, y: box.y + box.height / 2 - canvas.y };
}

function assertNear(
  actual: { x: number; y: number },
  expected: { x: number; y: number },
  what: string,
): void {
  const distance = Math.hypot(actual.x - expected.x, actual.y - expected.y);
  assert.ok(
    distance <= PIN_TOLERANCE_PX,
    `${what}: ${JSON.stringify(actual)} vs ${JSON.stringify(expected)}`,
  );
}

void describe(
  'annotations and saved views end to end',
  { timeout: 10 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      session = await openViewerSession('review', TOKEN);
      page = session.page;
      const { id, red } = await uploadPaintedCubes();
      run.modelId = id;
      run.red = red;
    });

    after(async () => {
      await session?.close();
    });

    void test('adds a pin on the red cube; it sits where it was clicked and is still there after a reload', async () => {
      const url = `${session.server.baseUrl}/#/models/${run.modelId}`;
      await openView(page, url);
      const click = redCentre(await viewPixels(page, 'before-pin'));
      await page.getByRole('button', { name: 'Annotate' }).click();
      await page.locator('.viewer canvas').click({ position: click });
      await page.getByLabel('Annotation text').fill(NOTE);
      await viewPixels(page, 'annotate-form');
      await page.locator('.annotation-form').getByRole('button', { name: 'Add' }).click();
      await showTab(page, 'Annotations');
      await page.locator('.annotations-list .annotation-text', { hasText: NOTE }).waitFor();
      assertNear(await pinCentre(page), click, 'the new pin is drawn where the part was clicked');
      assert.ok(await pinOnRed(page), 'the pin sits on the red cube');

      const stored = (
        (await (await api(`/api/models/${run.modelId}/annotations`)).json()) as {
          data: { group_id: string; text: string; normal: number[]; position: number[] }[];
        }
      ).data;
      assert.equal(stored.length, 1);
      assert.equal(stored[0].group_id, run.red, 'pinned to the red cube');
      assert.equal(stored[0].text, NOTE);
      // The red cube spans x -0.5…0.5 in model metres; its faces' normals are unit axes.
      assert.ok(Math.abs(stored[0].position[0]) <= 0.5 + 1e-4, `position in metres: ${stored[0].position}`);
      assert.ok(Math.abs(Math.hypot(...stored[0].normal) - 1) < 1e-4, 'a unit normal');
      assert.ok(
        stored[0].normal.some((value) => Math.abs(Math.abs(value) - 1) < 1e-4),
        'normal along an axis',
      );

      await page.reload();
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 120_000 });
      await showTab(page, 'Annotations');
      await page.locator('.annotations-list .annotation-text', { hasText: NOTE }).waitFor();
      assert.equal(await page.locator('.pin').count(), 1);
      assertNear(await pinCentre(page), click, 'after a reload the pin is in the same place');
      await viewPixels(page, 'pin-after-reload');
    });

    void test('clicking the annotation in the list flies to it and selects its part', async () => {
      await page.locator('.annotations-list .annotation-go').first().click();
      const canvas = await page.locator('.viewer canvas').boundingBox();
      assert.ok(canvas);
      const middle = { x: canvas.width / 2, y: canvas.height / 2 };
      // The flight is animated frame by frame, and a busy machine draws fewer frames: wait for the pin to settle.
      let pin = await pinCentre(page);
      for (const deadline = Date.now() + 15_000; Date.now() < deadline; pin = await pinCentre(page)) {
        if (Math.hypot(pin.x - middle.x, pin.y - middle.y) <= PIN_TOLERANCE_PX / 4) break;
        await page.waitForTimeout(100);
      }
      assert.equal(await page.locator('.viewer').getAttribute('data-selected'), '1');
      // The camera now looks at the pin: it is in the middle of the view.
      assertNear(pin, middle, 'the pin is centred after the flight');
      await viewPixels(page, 'flown-to-pin');
      await page.keyboard.press('Escape');
    });

    void test('saves a view with the red cube hidden and an X section; a reload and Restore bring it back', async () => {
      await openView(page, `${session.server.baseUrl}/#/models/${run.modelId}`);
      const full = await viewPixels(page, 'view-full');
      const fullGreen = countPixels(full, isGreen);
      // Select the red cube in the parts tree, hide it, then cut along X through the green cube.
      await showTab(page, 'Parts');
      await page.locator('.part-button', { hasText: 'Red cube' }).click();
      await page.getByRole('button', { name: 'Hide' }).click();
      await page.keyboard.press('Escape');
      await page.getByLabel('Cut X').check();
      await page.getByLabel('X section position').evaluate((slider: HTMLInputElement) => {
        slider.value = '800';
        slider.dispatchEvent(new Event('input', { bubbles: true }));
      });
      await page.waitForTimeout(400);
      const saved = await viewPixels(page, 'view-saved');
      assert.equal(countPixels(saved, isRed), 0, 'the red cube is hidden');
      assert.equal(await page.locator('.pin').isVisible(), false, 'its pin hides with it');
      const cutGreen = countPixels(saved, isGreen);
      assert.ok(cutGreen < fullGreen * 0.9, `the section cuts the green cube (${cutGreen} of ${fullGreen})`);

      await showTab(page, 'Views');
      await page.getByLabel('Name of the view to save').fill('Red hidden, cut X');
      await page.getByRole('button', { name: 'Save view' }).click();
      const item = page.locator('.views-list [data-view-id]', { hasText: 'Red hidden, cut X' });
      await item.waitFor();
      run.viewId = (await item.getAttribute('data-view-id')) ?? undefined;
      const views = (
        (await (await api(`/api/models/${run.modelId}/views`)).json()) as {
          data: {
            hidden: string[];
            isolated: string[];
            sections: { normal: number[]; constant: number }[];
          }[];
        }
      ).data;
      assert.equal(views.length, 1);
      assert.deepEqual(views[0].hidden, [run.red]);
      assert.deepEqual(views[0].isolated, []);
      assert.equal(views[0].sections.length, 1);
      assert.deepEqual(views[0].sections[0].normal, [-1, 0, 0]);

      await page.reload();
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 120_000 });
      await page.waitForTimeout(400);
      assert.equal(
        (await page.locator('.viewer').getAttribute('data-hidden')) ?? '0',
        '0',
        'a reload shows all',
      );
      assert.equal(await page.getByLabel('Cut X').isChecked(), false);
      await showTab(page, 'Views');
      await item.getByRole('button', { name: 'Restore' }).click();
      await page.waitForTimeout(600);
      assert.equal(await page.locator('.viewer').getAttribute('data-hidden'), '1');
      assert.equal(await page.getByLabel('Cut X').isChecked(), true, 'the section switch is on again');
      const restored = await viewPixels(page, 'view-restored');
      assert.equal(countPixels(restored, isRed), 0, 'the red cube is hidden again');
      const restoredGreen = countPixels(restored, isGreen);
      assert.ok(
        Math.abs(restoredGreen - cutGreen) < cutGreen * 0.05,
        `the green cube is cut as saved (${restoredGreen} vs ${cutGreen} green pixels)`,
      );
    });

    void test('a link with ?view= opens the model at that view', async () => {
      assert.ok(run.viewId);
      // Opened afresh: the address is set, then the page loaded from it.
      await page.goto(`${session.server.baseUrl}/#/models/${run.modelId}?view=${run.viewId}`);
      await page.reload();
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 120_000 });
      await page.waitForFunction(
        () => document.querySelector('.viewer')?.getAttribute('data-hidden') === '1',
      );
      assert.equal(await page.getByLabel('Cut X').isChecked(), true);
      assert.equal(countPixels(await viewPixels(page, 'view-link'), isRed), 0);
    });

    void test('a saved view cut by a plane along no axis comes back cut, and the section tool removes it', async () => {
      assert.ok(run.viewId);
      const saved = (
        (await (await api(`/api/models/${run.modelId}/views/${run.viewId}`)).json()) as {
          data: Record<string, unknown>;
        }
      ).data;
      // A slanted plane far beyond the model keeps none of it (normal·p + constant < 0 everywhere): both cubes go.
      const created = await api(`/api/models/${run.modelId}/views`, {
        method: 'POST',
        body: {
          name: 'Slanted cut',
          camera: saved.camera,
          hidden: [],
          isolated: [],
          sections: [{ normal: [-0.6, -0.8, 0], constant: -1000 }],
          xray: false,
          level: saved.level,
        },
      });
      assert.equal(created.status, 201, await created.clone().text());
      const viewId = ((await created.json()) as { data: { id: string } }).data.id;
      await page.goto(`${session.server.baseUrl}/#/models/${run.modelId}?view=${viewId}`);
      await page.reload();
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 120_000 });
      const row = page.locator('[data-free-sections]');
      await row.waitFor({ state: 'visible', timeout: 30_000 });
      assert.equal(
        await row.locator('[data-free-sections-text]').textContent(),
        'Cut by a plane along no axis (saved view)',
      );
      const cut = await viewPixels(page, 'slanted-cut');
      assert.equal(countPixels(cut, isRed) + countPixels(cut, isGreen), 0, 'the plane cuts both cubes away');
      await row.getByRole('button', { name: 'Remove' }).click();
      await page.waitForTimeout(400);
      const whole = await viewPixels(page, 'slanted-removed');
      assert.ok(
        countPixels(whole, isRed) > 100 && countPixels(whole, isGreen) > 100,
        'both cubes show again',
      );
      assert.equal(await row.isHidden(), true);
    });

    void test('exports BCF, and imports a file whose topics have a camera only and no viewpoint at all', async () => {
      await openView(page, `${session.server.baseUrl}/#/models/${run.modelId}`);
      await showTab(page, 'Annotations');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Export BCF' }).click(),
      ]);
      assert.equal(download.suggestedFilename(), 'Review cubes.bcf');
      const exported = await unzipBcf(await readFile(await download.path()));
      assert.equal(exported.get('bcf.version')?.includes('VersionId="3.0"'), true);
      assert.ok(
        [...exported].some(([name, xml]) => name.endsWith('/markup.bcf') && xml.includes(NOTE)),
        'the pinned note is a topic of the export',
      );

      await page.getByLabel('BCF file to import').setInputFiles({
        name: 'site-review.bcf',
        mimeType: 'application/zip',
        buffer: otherToolBcf(),
      });
      const result = page.locator('.bcf-result', { hasText: 'Imported' });
      await result.waitFor();
      assert.equal(
        (await result.textContent())?.trim(),
        'Imported 2 topics: 0 annotations, 1 saved view, 1 unpinned note.',
      );
      await showTab(page, 'Views');
      await page.locator('.views-list [data-view-id]', { hasText: 'Seen from the south' }).waitFor();
      await showTab(page, 'Annotations');
      const note = page.locator('.notes-list .note-item', { hasText: 'Door swing unclear' });
      await note.waitFor();
      assert.match((await note.textContent()) ?? '', /Check with the architect/);
      assert.match((await note.textContent()) ?? '', /2 comments/);
      await note.scrollIntoViewIfNeeded();
      if (SHOTS) await page.screenshot({ path: join(SHOTS, 'review-bcf-imported-page.png'), fullPage: true });
      assert.deepEqual(session.pageErrors, []);
    });

    void test('a share made with annotations shows the pin and the list, and no edit control', async () => {
      const created = await api(`/api/models/${run.modelId}/shares`, {
        method: 'POST',
        body: { annotations: true },
      });
      assert.equal(created.status, 201, await created.clone().text());
      const { url } = ((await created.json()) as { data: { url: string } }).data;
      const browser = page.context().browser();
      assert.ok(browser);
      const visitorContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      try {
        const visitor = await visitorContext.newPage();
        const errors: string[] = [];
        visitor.on('pageerror', (error) => errors.push(error.message));
        await openView(visitor, url);
        await visitor.locator('.annotations-list .annotation-text', { hasText: NOTE }).waitFor();
        assert.equal(await visitor.locator('.pin').count(), 1);
        const panel = visitor.locator('.annotations-panel');
        assert.equal(
          await panel.locator('input, textarea, .danger').count(),
          0,
          'no edit control in the list',
        );
        assert.equal(await visitor.getByRole('button', { name: 'Annotate' }).count(), 0);
        assert.equal(await visitor.getByRole('button', { name: /delete/i }).count(), 0);
        assert.equal(await visitor.locator('.views-panel').count(), 0);
        assert.ok(await pinOnRed(visitor), 'the shared pin sits on the red cube');
        await viewPixels(visitor, 'share');
        assert.deepEqual(errors, []);
      } finally {
        await visitorContext.close();
      }
      assert.deepEqual(session.pageErrors, []);
    });

    void test('a read token opens the model with every edit control read-only before any write is tried', async () => {
      const created = await api('/api/tokens', { method: 'POST', body: { name: 'Reviewer', scope: 'read' } });
      assert.equal(created.status, 201, await created.clone().text());
      const { token } = ((await created.json()) as { data: { token: string } }).data;
      const browser = page.context().browser();
      assert.ok(browser);
      const readerContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await readerContext.addInitScript((saved) => localStorage.setItem('vitrine.apiToken', saved), token);
      const writes: string[] = [];
      readerContext.on('request', (request) => {
        // The bulk material lookup is a POST that only reads.
        const reads = request.method() === 'GET' || request.url().endsWith('/api/v1/groups/materials');
        if (!reads && request.url().includes('/api/')) writes.push(`${request.method()} ${request.url()}`);
      });
      try {
        const reader = await readerContext.newPage();
        await openView(reader, `${session.server.baseUrl}/#/models/${run.modelId}`);
        const annotate = reader.getByRole('button', { name: 'Annotate' });
        const save = reader.locator('.views-panel button[type="submit"]');
        await reader.waitForFunction(
          () =>
            (document.querySelector('.annotate-toggle') as HTMLButtonElement | null)?.disabled === true &&
            (document.querySelector('.views-panel button[type="submit"]') as HTMLButtonElement | null)
              ?.disabled === true,
          null,
          { timeout: 30_000 },
        );
        assert.ok(await annotate.isDisabled(), 'Annotate is disabled');
        await showTab(reader, 'Annotations');
        assert.ok(await save.isDisabled(), 'saving a view is disabled');
        assert.ok(
          await reader.getByRole('button', { name: 'Import BCF' }).isDisabled(),
          'BCF import is disabled',
        );
        assert.ok(await reader.getByRole('button', { name: 'Export BCF' }).isEnabled(), 'BCF export is not');
        assert.ok(
          await reader.locator('.views-panel input').first().isDisabled(),
          'the view name is disabled',
        );
        assert.deepEqual(writes, [], 'no write was tried');
      } finally {
        await readerContext.close();
      }
      // The admin token's page keeps them writable.
      await openView(page, `${session.server.baseUrl}/#/models/${run.modelId}`);
      await page.waitForTimeout(1_000);
      assert.ok(await page.getByRole('button', { name: 'Annotate' }).isEnabled());
      assert.ok(await page.locator('.views-panel button[type="submit"]').isEnabled());
    });
  },
);
