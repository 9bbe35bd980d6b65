/**
 * @module A QR code drawn as SVG from uqr's module matrix (one path, no HTML string), labelled
 * with what it encodes.
 */
import { encode } from "uqr";

export function QrCode(props: { text: string; label: string }) {
  const { data, size } = encode(props.text, { border: 2, ecc: "M" });
  let path = "";
  data.forEach((row, y) =>
    row.forEach((on, x) => {
      if (on) path += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return (
    <svg class="qr" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={props.label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
