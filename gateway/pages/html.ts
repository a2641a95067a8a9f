/**
 * HTML building with escaping by default: `html` is a tagged template whose interpolations are escaped
 * (escape-html, the jshttp implementation Express uses) unless they are already `Html`. Arrays are
 * joined, and null, undefined and false render as nothing. `trusted()` marks a constant string as HTML;
 * it must never wrap user input.
 */
import escapeHtml from 'escape-html';

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index++) out += render(values[index]!) + strings[index + 1]!;
  return new Html(out);
}

export function trusted(markup: string): Html {
  return new Html(markup);
}

function render(value: Part): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}
