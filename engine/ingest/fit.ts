/** FIT decoding — being written (fit-file-parser inside a wrapper that makes it safe on real files). */
import { DecodeError } from './decode-error.js';
import type { DecodedFile } from './decoded.js';

export async function decodeFit(_bytes: Uint8Array): Promise<DecodedFile> {
  throw new DecodeError('fit_unavailable' as never, 'fit decode: not available yet');
}
