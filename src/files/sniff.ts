/** What an image really is, from its first bytes (magic numbers), whatever its name or headers say. */

export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/heic', 'image/webp'] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

export const EXTENSIONS: Record<ImageType, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/heic': 'heic', 'image/webp': 'webp' };

/** Bytes needed to tell the types apart. */
export const SNIFF_BYTES = 12;

const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1']);

/** The image type of `head` (the first bytes of a file), or null when it is none of the four. */
export function sniffImage(head: Buffer): ImageType | null {
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp' && HEIF_BRANDS.has(head.toString('latin1', 8, 12))) return 'image/heic';
  return null;
}
