/**
 * Reading JSON log lines as an operator's tools do: the raw text, not only what `JSON.parse` keeps (it
 * silently keeps the last of two equal keys, so a line carrying `pid` twice parses without complaint).
 */

/** Every key that appears more than once in one object of the JSON text `line`, as `path.key`. */
export function repeatedKeys(line: string): string[] {
  const repeated: string[] = [];
  const open: { keys: Set<string> | null; path: string }[] = [];
  let expectKey = false;
  let lastKey = '';
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    const top = open.at(-1);
    if (char === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      const text = JSON.parse(line.slice(i, end + 1)) as string;
      if (expectKey && top?.keys) {
        if (top.keys.has(text)) repeated.push(`${top.path}${text}`);
        top.keys.add(text);
        lastKey = text;
      }
      expectKey = false;
      i = end;
    } else if (char === '{' || char === '[') {
      const path = top ? `${top.path}${top.keys ? lastKey : '[]'}.` : '';
      open.push({ keys: char === '{' ? new Set() : null, path });
      expectKey = char === '{';
    } else if (char === '}' || char === ']') {
      open.pop();
    } else if (char === ',') {
      expectKey = Boolean(top?.keys);
    }
  }
  return repeated;
}

/** The lines of `output` that are JSON objects, raw. */
export function jsonLines(output: string): string[] {
  return output.split('\n').filter((line) => line.startsWith('{'));
}
