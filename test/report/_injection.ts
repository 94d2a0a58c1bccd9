// The report-injection corpus: text an attacker controls (case ids, prompts, model text, tool results)
// that must come out as text in every HTML surface (the report file and the `ui` console).
export const INJECTION_CORPUS: readonly string[] = [
  '</script><script>window.__pwned=1</script>',
  '<img src=x onerror="window.__pwned=1">',
  '"><svg onload="window.__pwned=1">',
  "'><iframe src=javascript:window.__pwned=1>",
  '<!-- </style><style>body{display:none}</style> -->',
  '\u001b[31mred\u001b[0m \u0007 bell',
  '\u2028line\u2029separator',
  '{{constructor.constructor("window.__pwned=1")()}}',
  '${window.__pwned=1}',
  '&lt;b&gt;already escaped&lt;/b&gt;',
];

/** A case id that carries the first (and worst) entry of the corpus. */
export const HOSTILE_CASE_ID = 'x</script><script>window.__pwned=1</script>';
