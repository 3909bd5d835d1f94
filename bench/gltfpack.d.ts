// Types for the gltfpack npm package's library API, which ships none.
declare module 'gltfpack' {
  /** File access gltfpack uses instead of the file system. */
  export interface GltfpackInterface {
    read(path: string): Uint8Array;
    write(path: string, data: Uint8Array): void;
  }
  /** Runs gltfpack with command-line `args`; resolves to its log. */
  export function pack(args: string[], iface: GltfpackInterface): Promise<string>;
}
