import { RE2JS } from 're2js';

// Glob patterns come from the model, so they compile to a linear-time regex (re2js).
//   **/  any number of directories     *  any run of characters but "/"     ?  one character but "/"
//   [abc] [!abc]  character classes    {a,b}  alternatives
// A pattern without "/" matches the file name at any depth ("*.py" finds src/app.py), the way
// .gitignore patterns do, because models write it meaning exactly that.

export function globToRegexSource(pattern: string): string {
  let out = '';
  let braces = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        const slash = pattern[i + 2] === '/';
        out += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else out += '[^/]*';
    } else if (ch === '?') out += '[^/]';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        let body = pattern.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (ch === '{') {
      braces++;
      out += '(?:';
    } else if (ch === '}' && braces > 0) {
      braces--;
      out += ')';
    } else if (ch === ',' && braces > 0) out += '|';
    else out += RE2JS.quote(ch);
  }
  while (braces-- > 0) out += ')';
  return out;
}

/** A matcher over forward-slash relative paths. */
export function compileGlob(pattern: string): (relPath: string) => boolean {
  const p = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  const anyDepth = !p.includes('/');
  const re = RE2JS.compile(globToRegexSource(p));
  return (rel) => re.testExact(anyDepth ? rel.slice(rel.lastIndexOf('/') + 1) : rel);
}
