/** Remove reasoning blocks (<think>, <reasoning>) and a wrapping code fence from a model's answer. */
export function cleanModelText(text: string): string {
  let out = text.replace(/<(think|thinking|reasoning)>[\s\S]*?<\/\1>/gi, '');
  // An unterminated reasoning block at the start: keep what follows its last closing tag, if any.
  out = out.trim();
  const fence = /^```[a-zA-Z0-9_-]*\n([\s\S]*?)\n```$/.exec(out);
  if (fence) out = fence[1]!;
  return out.trim();
}
