// What an API calls once a change is done, for the app to turn into events (and side effects such as thumbnail
// refreshes): the material service announces, the catalog knows which models a group belongs to.

/** Announces that groups were bound to or unbound from a material (the `bindings.changed` event). */
export type AnnounceBindings = (materialId: number, groupIds: string[], bound: boolean) => Promise<void>;

/** Announces that a material's fields (those named) were changed. */
export type AnnounceMaterialEdit = (materialId: number, fields: string[]) => Promise<void>;
