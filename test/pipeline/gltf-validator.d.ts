// Types for the parts of the Khronos validator's API the pipeline tests call; the package ships none.
declare module 'gltf-validator' {
  /** One finding of the validator. */
  export interface ValidationMessage {
    code: string;
    message: string;
    severity: number;
    pointer?: string;
  }
  /** The validator's report. */
  export interface ValidationReport {
    issues: { numErrors: number; numWarnings: number; messages: ValidationMessage[] };
  }
  /** Validates a GLB or glTF JSON held in memory. */
  export function validateBytes(
    data: Uint8Array,
    options?: Record<string, unknown>,
  ): Promise<ValidationReport>;
  const validator: { validateBytes: typeof validateBytes };
  export default validator;
}
