// WCAG contrast of a node's text colour against its background, for a warning beside the colour
// control (AA asks 4.5:1 for body text). Theme tokens are resolved in the light appearance.

export function contrastWarning(ctx, segments) {
  const name = segments[segments.length - 1];
  if (name !== "color" && name !== "background") return null;
  const style = segments.slice(0, -1);
  let node = ctx.document();
  for (const segment of style) node = node?.[segment];
  const fg = resolve(ctx.document(), node?.color);
  const bg = resolve(ctx.document(), typeof node?.background === "string" ? node.background : null)
    ?? resolve(ctx.document(), ctx.document().settings?.background?.color);
  if (!fg || !bg) return null;
  const ratio = contrast(fg, bg);
  if (ratio >= 4.5) return null;
  const element = document.createElement("p");
  element.className = "hint warn";
  element.textContent = `Contrast ${ratio.toFixed(1)}:1 against the background: below 4.5:1 (WCAG AA), hard to read.`;
  return element;
}

/** A colour value as [r, g, b] (0–255): hex or a theme token (its light value); null otherwise. */
export function resolve(document, value) {
  if (typeof value !== "string") return null;
  let hex = value;
  if (value.startsWith("$")) {
    const token = document.theme?.colors?.[value.slice(1)];
    hex = typeof token === "string" ? token : token?.light;
  }
  const match = /^#([0-9a-f]{3,8})$/i.exec(hex ?? "");
  if (!match) return null;
  let digits = match[1];
  if (digits.length <= 4) digits = [...digits].map((d) => d + d).join("");
  return [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
}

function luminance([r, g, b]) {
  const channel = (c) => { const v = c / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
