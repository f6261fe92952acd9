import { expect } from 'vitest';

type Send = (body: Record<string, unknown>) => PromiseLike<{ status: number; body: { content: string; is_error: boolean } }>;

/**
 * Views line `line` of `file` through the compat text editor, `column` after `column` as each
 * closing line names it, to the line's end: the line's text and the number of views.
 */
export async function viewToEnd(send: Send, file: string, line: number): Promise<{ text: string; pages: number }> {
  let text = '';
  let column = 1;
  for (let pages = 1; ; pages++) {
    const res = await send({ command: 'view', path: file, view_range: [line, line], column });
    expect(res.status).toBe(200);
    expect(res.body.is_error, res.body.content).toBe(false);
    const content = res.body.content;
    const at = content.lastIndexOf('\n(');
    text += content.slice(content.indexOf('\u2192') + 1, at);
    const closing = content.slice(at + 1);
    const next = new RegExp(`view with view_range \\[${line}, ${line}\\] and column (\\d+)\\.\\)$`).exec(closing);
    if (next === null) {
      expect(closing).toMatch(
        /: the end of the line\. (To read on, view with view_range \[\d+, -1\]\.|It is the last line of the file\.)\)$/,
      );
      return { text, pages };
    }
    column = Number(next[1]);
  }
}
