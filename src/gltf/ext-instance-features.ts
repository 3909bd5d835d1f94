/**
 * `EXT_instance_features` for glTF-Transform, which does not know it: the feature ids of a node's GPU instances
 * (`EXT_mesh_gpu_instancing`), each resolved by a property table of `EXT_structural_metadata`. A level of many
 * parts draws the nodes that share a mesh as instances of one node and tells their parts apart this way; without
 * the extension, reading such a level back would drop which instance is which part.
 */
import { Extension, ExtensionProperty, PropertyType, RefList } from '@gltf-transform/core';
import type { IProperty, Node, Nullable, ReaderContext, WriterContext } from '@gltf-transform/core';
import { EXTStructuralMetadata } from '@gltf-transform/extensions';
import type { PropertyTable, StructuralMetadata } from '@gltf-transform/extensions';

/** The extension's name in a glTF file. */
export const EXT_INSTANCE_FEATURES = 'EXT_instance_features';

/** The extension whose instances these feature ids tell apart. */
const INSTANCING = 'EXT_mesh_gpu_instancing';

interface IInstanceFeatureID extends IProperty {
  featureCount: number;
  attribute: number | null;
  nullFeatureId: number | null;
  label: string;
  propertyTable: PropertyTable;
}

interface IInstanceFeatures extends IProperty {
  featureIds: RefList<InstanceFeatureID>;
}

/** One set of feature ids of a node's instances: an instance attribute `_FEATURE_ID_n`, or the instance index. */
export class InstanceFeatureID extends ExtensionProperty<IInstanceFeatureID> {
  static override EXTENSION_NAME = EXT_INSTANCE_FEATURES;
  declare extensionName: typeof EXT_INSTANCE_FEATURES;
  declare propertyType: 'InstanceFeatureID';
  declare parentTypes: ['InstanceFeatures'];

  protected override init(): void {
    this.extensionName = EXT_INSTANCE_FEATURES;
    this.propertyType = 'InstanceFeatureID';
    this.parentTypes = ['InstanceFeatures'];
  }

  protected override getDefaults(): Nullable<IInstanceFeatureID> {
    return Object.assign(super.getDefaults(), {
      featureCount: 0,
      attribute: null,
      nullFeatureId: null,
      label: '',
      propertyTable: null,
    });
  }

  /** How many distinct features the ids name. */
  getFeatureCount(): number {
    return this.get('featureCount');
  }
  /** Sets how many distinct features the ids name. */
  setFeatureCount(count: number): this {
    return this.set('featureCount', count);
  }
  /** `n` of the instance attribute `_FEATURE_ID_n`; null when each instance's index is its feature id. */
  getAttribute(): number | null {
    return this.get('attribute');
  }
  /** Sets `n` of the instance attribute `_FEATURE_ID_n`, or null for the instance index. */
  setAttribute(attribute: number | null): this {
    return this.set('attribute', attribute);
  }
  /** The feature id that means "no feature", if any. */
  getNullFeatureID(): number | null {
    return this.get('nullFeatureId');
  }
  /** Sets the feature id that means "no feature". */
  setNullFeatureID(id: number | null): this {
    return this.set('nullFeatureId', id);
  }
  /** A label of the set. */
  getLabel(): string {
    return this.get('label');
  }
  /** Sets the set's label. */
  setLabel(label: string): this {
    return this.set('label', label);
  }
  /** The property table the ids index, if any. */
  getPropertyTable(): PropertyTable | null {
    return this.getRef('propertyTable');
  }
  /** Sets the property table the ids index. */
  setPropertyTable(table: PropertyTable | null): this {
    return this.setRef('propertyTable', table);
  }
}

/** The feature id sets of a node's instances. */
export class InstanceFeatures extends ExtensionProperty<IInstanceFeatures> {
  static override EXTENSION_NAME = EXT_INSTANCE_FEATURES;
  declare extensionName: typeof EXT_INSTANCE_FEATURES;
  declare propertyType: 'InstanceFeatures';
  declare parentTypes: [PropertyType.NODE];

  protected override init(): void {
    this.extensionName = EXT_INSTANCE_FEATURES;
    this.propertyType = 'InstanceFeatures';
    this.parentTypes = [PropertyType.NODE];
  }

  protected override getDefaults(): Nullable<IInstanceFeatures> {
    return Object.assign(super.getDefaults(), { featureIds: new RefList<InstanceFeatureID>() });
  }

  /** The node's feature id sets. */
  listFeatureIDs(): InstanceFeatureID[] {
    return this.listRefs('featureIds');
  }
  /** Adds a feature id set. */
  addFeatureID(featureId: InstanceFeatureID): this {
    return this.addRef('featureIds', featureId);
  }
}

interface FeatureIDDef {
  featureCount: number;
  attribute?: number;
  nullFeatureId?: number;
  label?: string;
  propertyTable?: number;
}

/** Reads and writes `EXT_instance_features` on nodes; needs `EXT_structural_metadata` for its tables. */
export class EXTInstanceFeatures extends Extension {
  static override EXTENSION_NAME = EXT_INSTANCE_FEATURES;
  override extensionName = EXT_INSTANCE_FEATURES;

  /** A node's empty list of feature id sets. */
  createInstanceFeatures(): InstanceFeatures {
    return new InstanceFeatures(this.document.getGraph());
  }

  /** A feature id set. */
  createFeatureID(): InstanceFeatureID {
    return new InstanceFeatureID(this.document.getGraph());
  }

  override read(context: ReaderContext): this {
    const tables = this.propertyTables();
    (context.jsonDoc.json.nodes ?? []).forEach((nodeDef, index) => {
      const definition = nodeDef.extensions?.[EXT_INSTANCE_FEATURES] as
        { featureIds?: FeatureIDDef[] } | undefined;
      if (!definition) return;
      const features = this.createInstanceFeatures();
      for (const idDef of definition.featureIds ?? []) {
        const featureId = this.createFeatureID().setFeatureCount(idDef.featureCount);
        if (idDef.attribute !== undefined) featureId.setAttribute(idDef.attribute);
        if (idDef.nullFeatureId !== undefined) featureId.setNullFeatureID(idDef.nullFeatureId);
        if (idDef.label !== undefined) featureId.setLabel(idDef.label);
        if (idDef.propertyTable !== undefined)
          featureId.setPropertyTable(tables[idDef.propertyTable] ?? null);
        features.addFeatureID(featureId);
      }
      context.nodes[index]!.setExtension(EXT_INSTANCE_FEATURES, features);
    });
    return this;
  }

  override write(context: WriterContext): this {
    const tables = this.propertyTables();
    const json = context.jsonDoc.json;
    for (const node of this.document.getRoot().listNodes()) {
      const features = node.getExtension<InstanceFeatures>(EXT_INSTANCE_FEATURES);
      const nodeDef = json.nodes?.[context.nodeIndexMap.get(node as Node)!];
      // The extension describes instances: a node that has none gets no feature ids.
      if (!features || !nodeDef || !node.getExtension(INSTANCING)) continue;
      const featureIds = features.listFeatureIDs().map((featureId) => {
        const idDef: FeatureIDDef = { featureCount: featureId.getFeatureCount() };
        const attribute = featureId.getAttribute();
        if (attribute !== null) idDef.attribute = attribute;
        const nullId = featureId.getNullFeatureID();
        if (nullId !== null) idDef.nullFeatureId = nullId;
        if (featureId.getLabel()) idDef.label = featureId.getLabel();
        const table = featureId.getPropertyTable();
        if (table && tables.includes(table)) idDef.propertyTable = tables.indexOf(table);
        return idDef;
      });
      nodeDef.extensions = { ...nodeDef.extensions, [EXT_INSTANCE_FEATURES]: { featureIds } };
    }
    return this;
  }

  /** The document's property tables, in file order (read before this extension: it pre-reads at the scene). */
  private propertyTables(): PropertyTable[] {
    return (
      this.document
        .getRoot()
        .getExtension<StructuralMetadata>(EXTStructuralMetadata.EXTENSION_NAME)
        ?.listPropertyTables() ?? []
    );
  }
}
