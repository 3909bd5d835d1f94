// The properties of real IFC buildings (FZK-Haus, ArchiCAD 14; the Duplex Apartment, Revit 2011, whose ~5,000
// property rows are more than one fixed-size insert of the past could bind on SQLite) against what web-ifc's own
// property helpers read from the same file: every product with property sets has them, and a where= filter picks
// exactly the parts a direct reading picks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as WebIfc from 'web-ifc';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

// The buildings ship among the repository's fixtures (test/fixtures/models/SOURCES.md), so this runs on a bare clone.
const BUILDINGS = ['AC14-FZK-Haus.ifc', 'duplex.ifc'];
const CONVERSION_TIMEOUT_MS = 120_000;

interface ListedPart {
  group_id: string;
  name: string;
}

/** What web-ifc's property helpers say of each product: its property set names, type name and storey. */
interface DirectReading {
  /** GlobalId → names of its own and its type's property sets (only products that have some). */
  propertySets: Map<string, string[]>;
  /** GlobalId → the name of its type object. */
  typeNames: Map<string, string>;
  /** GlobalId → the name of the storey whose spatial subtree holds it. */
  storeys: Map<string, string>;
}

/** Attributes of a property set definition that name it rather than hold a value. */
const NAMING_ATTRIBUTES = new Set(['expressID', 'type', 'GlobalId', 'OwnerHistory', 'Name', 'Description']);

/** Whether a property set definition (a set, a quantity set, lining properties…) holds any value. */
function hasValues(set: Record<string, unknown>): boolean {
  return Object.entries(set).some(
    ([key, value]) =>
      !NAMING_ATTRIBUTES.has(key) && value != null && !(Array.isArray(value) && value.length === 0),
  );
}

async function readDirectly(file: string): Promise<DirectReading> {
  const api = new WebIfc.IfcAPI();
  api.SetWasmPath(path.dirname(createRequire(import.meta.url).resolve('web-ifc')) + path.sep, true);
  await api.Init(undefined, true);
  api.SetLogLevel(WebIfc.LogLevel.LOG_LEVEL_OFF);
  const model = api.OpenModel(readFileSync(file));
  const reading: DirectReading = { propertySets: new Map(), typeNames: new Map(), storeys: new Map() };
  const guidOf = (id: number): string => api.GetLine(model, id).GlobalId.value;
  const products = new Set<number>();
  api.StreamAllMeshes(model, (mesh) => products.add(mesh.expressID));
  for (const id of products) {
    // Its own sets, then its type's (the helper's includeTypeProperties fails on a type without sets).
    const sets = await api.properties.getPropertySets(model, id, false, false);
    const [type] = await api.properties.getTypeProperties(model, id, false);
    for (const reference of type?.HasPropertySets ?? []) sets.push(api.GetLine(model, reference.value));
    // A definition with nothing set (Revit writes window lining properties whose every value is $) shows no values.
    const names = sets.filter(hasValues).map((set) => set.Name?.value ?? api.GetNameFromTypeCode(set.type));
    if (names.length > 0) reading.propertySets.set(guidOf(id), names);
    if (type?.Name?.value) reading.typeNames.set(guidOf(id), type.Name.value);
  }
  const walk = (node: { expressID: number; type: string; children: unknown[] }, storey?: string) => {
    const here = node.type === 'IFCBUILDINGSTOREY' ? api.GetLine(model, node.expressID).Name?.value : storey;
    if (here !== undefined && products.has(node.expressID)) reading.storeys.set(guidOf(node.expressID), here);
    for (const child of node.children) walk(child as typeof node, here);
  };
  walk(await api.properties.getSpatialStructure(model, false));
  api.CloseModel(model);
  return reading;
}

for (const dialect of testDialects())
  for (const building of BUILDINGS) {
    const file = path.join(SAMPLE_MODELS, 'ifc', building);
    void describe(`properties of ${building} against web-ifc (${dialect})`, () => {
      let testApp: TestApp;
      let api: ReturnType<typeof catalogApi>;
      let id: string;
      let parts: ListedPart[];
      let direct: DirectReading;
      before(async () => {
        testApp = await createTestApp(dialect);
        api = catalogApi(testApp.app, testApp.auth);
        testApp.startJobRunner();
        direct = await readDirectly(file);
        id = (await api.create(building, readFileSync(file))).id;
        const model = await waitForStatus(testApp.app, id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
        assert.equal(model.status, 'completed', model.error);
        parts = (await api.call('GET', `/${id}/parts`)).json.data;
      });
      after(() => testApp.close());

      const propertiesOf = async (groupId: string) => {
        const answer = await api.call('GET', `/${id}/parts/${encodeURIComponent(groupId)}`);
        assert.equal(answer.status, 200, answer.text);
        return answer.json.data.properties as Record<string, Record<string, unknown>>;
      };
      const filtered = async (condition: string) => {
        const answer = await api.call('GET', `/${id}/parts?where=${encodeURIComponent(condition)}`);
        assert.equal(answer.status, 200, answer.text);
        return (answer.json.data as ListedPart[]).map((part) => part.group_id).sort();
      };

      void it('gives every product with property sets those sets, and each part its class and storey', async (t) => {
        assert.ok(direct.propertySets.size > 0, 'web-ifc finds products with property sets');
        const byGroup = new Set(parts.map((part) => part.group_id));
        for (const [guid, names] of direct.propertySets) {
          assert.ok(byGroup.has(guid), `product ${guid} is a part`);
          const properties = await propertiesOf(guid);
          for (const name of names)
            assert.ok(properties[name], `${guid} has ${name}: ${Object.keys(properties)}`);
        }
        t.diagnostic(`${direct.propertySets.size} of ${parts.length} products have property sets`);
        for (const part of parts.slice(0, 20)) {
          const { Element } = await propertiesOf(part.group_id);
          assert.equal(Element?.GlobalId, part.group_id);
          assert.match(String(Element?.Class), /^Ifc/);
        }
      });

      void it('where= on the type and the storey picks exactly the parts web-ifc picks', async () => {
        const typeName = [...direct.typeNames.values()][0]!;
        const byType = [...direct.typeNames].filter(([, name]) => name === typeName).map(([guid]) => guid);
        assert.deepEqual(await filtered(`Element.Type=${typeName}`), byType.sort());
        for (const storey of new Set(direct.storeys.values())) {
          const inStorey = [...direct.storeys].filter(([, name]) => name === storey).map(([guid]) => guid);
          assert.ok(inStorey.length > 0);
          assert.deepEqual(await filtered(`Element.Storey=${storey}`), inStorey.sort(), storey);
        }
      });
    });
  }
