/**
 * The paint of the model page's view: the materials bound to its parts, read from the material service — as the
 * model binds them, or as a configuration shows them (its bindings over the model's) — and a version's paint that
 * may stand in for them while that version is looked at.
 */
import type { ConfigurationRef } from '../api/configurations-api.ts';
import { materialsForGroups } from '../api/materials-api.ts';
import { ApiError } from '../api/api-error.ts';
import type { GroupMaterial, Material, Part } from '../api/types.ts';
import { addressedConfiguration, showInAddress } from '../configurations/configuration-address.ts';
import { notifyInfo } from '../ui/notify.ts';

/** Where the paint goes. */
export interface PaintTargets {
  view: { setPaint: (paint: Map<string, Material>) => void };
  viewport: HTMLElement;
  isDisposed: () => boolean;
  /** The bound paint changed (not a stand-in): the tree's swatches follow it. */
  onPainted: (paint: Map<string, Material>) => void;
}

/** The view's paint and what changes it. */
export interface WorkspacePaint {
  /** The bound paint as read last (not to be changed). */
  current: () => Map<string, Material>;
  /** Reads the materials of `groupIds` (all parts when absent) again and repaints. */
  refresh: (groupIds?: string[]) => Promise<void>;
  /** A version's paint to show instead (null gives the bound paint back). */
  setOverride: (override: Map<string, Material> | null) => void;
  /** The configuration shown, or null for the model's own bindings. */
  configuration: () => ConfigurationRef | null;
  /** Shows configuration `id`'s paint (null: the model's own), read afresh. */
  showConfiguration: (id: string | null) => Promise<void>;
}

/** The paint of `parts` of model `modelId`, starting on the configuration the address names, if any. */
export function createWorkspacePaint(modelId: string, parts: Part[], targets: PaintTargets): WorkspacePaint {
  const { view, viewport } = targets;
  let paint = new Map<string, Material>();
  let override: Map<string, Material> | null = null;
  let configurationId = addressedConfiguration();
  /** Counts full repaints, so the answer of an earlier switch cannot overwrite a later one's. */
  let round = 0;

  const refresh = async (groupIds?: string[]): Promise<void> => {
    const mine = groupIds ? round : ++round;
    const asked = configurationId;
    let entries: GroupMaterial[];
    try {
      entries = await materialsForGroups(groupIds ?? parts.map((part) => part.group_id), asked ?? undefined);
    } catch (error) {
      if (asked === null || asked !== configurationId || !(error instanceof ApiError) || error.status !== 404)
        throw error;
      // A link to a configuration deleted since: show the model's own paint rather than none.
      notifyInfo('The configuration in the address no longer exists; showing the present bindings');
      configurationId = null;
      showInAddress(modelId, null);
      return refresh();
    }
    if (targets.isDisposed() || mine !== round || asked !== configurationId) return;
    const next = groupIds ? new Map(paint) : new Map<string, Material>();
    for (const groupId of groupIds ?? []) next.delete(groupId);
    for (const entry of entries) next.set(entry.group_id, entry.material);
    paint = next;
    view.setPaint(override ?? paint);
    targets.onPainted(paint);
    viewport.dataset.paint = String(paint.size);
    // Which paint the view holds now, for whoever waits on a switch: the configuration's id, empty for none.
    viewport.dataset.paintedConfiguration = asked ?? '';
  };

  return {
    current: () => paint,
    refresh,
    setOverride: (next) => {
      override = next;
      view.setPaint(override ?? paint);
    },
    configuration: () => (configurationId ? { modelId, id: configurationId } : null),
    showConfiguration: (id) => {
      configurationId = id;
      return refresh();
    },
  };
}
