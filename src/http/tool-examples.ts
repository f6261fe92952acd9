/**
 * Request and 200 examples per tool for the OpenAPI document (captured from real calls; see
 * test/openapi-examples.test.ts, which replays them). A tool without an entry has none.
 */
export interface ToolExamples {
  requests: readonly Record<string, unknown>[];
  responses: readonly Record<string, unknown>[];
}

const PATCH = [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' def greet():', '-    return "hi"', '+    return "hello"'] }];

export const TOOL_EXAMPLES: Record<string, ToolExamples> = {
  Read: {
    requests: [{ file_path: 'app.py' }, { file_path: 'analysis.ipynb' }],
    responses: [
      {
        result: {
          type: 'text',
          file: {
            file_path: 'app.py',
            content: 'def greet():\n    return "hi"',
            start_line: 1,
            num_lines: 2,
            total_lines: 2,
            encoding: 'utf-8',
            line_endings: 'LF',
            bom: false,
          },
        },
        text: '     1→def greet():\n     2→    return "hi"',
      },
      {
        result: {
          type: 'notebook',
          file: {
            file_path: 'analysis.ipynb',
            language: 'python',
            nbformat: 4,
            nbformat_minor: 5,
            total_cells: 2,
            cells: [
              {
                cell_id: 'load',
                index: 0,
                cell_type: 'code',
                source: "import pandas as pd\ndf = pd.read_csv('data.csv')",
                execution_count: null,
                outputs: [],
              },
              { cell_id: 'look', index: 1, cell_type: 'code', source: 'df.head()', execution_count: null, outputs: [] },
            ],
          },
        },
        text: '<cell id="load" index="0" type="code">\nimport pandas as pd\ndf = pd.read_csv(\'data.csv\')\n</cell>\n<cell id="look" index="1" type="code">\ndf.head()\n</cell>',
      },
    ],
  },
  Edit: {
    requests: [{ file_path: 'app.py', old_string: '"hi"', new_string: '"hello"' }],
    responses: [
      {
        result: { file_path: 'app.py', replacements: 1, match: 'exact', structured_patch: PATCH },
        text: 'The file app.py has been updated successfully.',
      },
    ],
  },
  MultiEdit: {
    // The second edit's old_string is indented one level too deep: it lands at rung `indentation`.
    requests: [
      {
        file_path: 'app.py',
        edits: [
          { old_string: 'def greet():', new_string: 'def greet(name):' },
          { old_string: '        return "hello"', new_string: '        return f"hello {name}"' },
        ],
      },
    ],
    responses: [
      {
        result: {
          file_path: 'app.py',
          edits_applied: 2,
          replacements: 2,
          matches: ['exact', 'indentation'],
          structured_patch: [
            {
              oldStart: 1,
              oldLines: 2,
              newStart: 1,
              newLines: 2,
              lines: ['-def greet():', '-    return "hello"', '+def greet(name):', '+    return f"hello {name}"'],
            },
          ],
        },
        text: 'The file app.py has been updated successfully.',
      },
    ],
  },
  ApplyPatch: {
    requests: [
      {
        patch:
          '*** Begin Patch\n*** Update File: app.py\n@@ def greet(name):\n-    return f"hello {name}"\n+    return f"hello, {name}!"\n*** End Patch\n',
      },
    ],
    responses: [
      {
        result: {
          files: [
            {
              file_path: 'app.py',
              type: 'update',
              match: 'exact',
              additions: 1,
              deletions: 1,
              structured_patch: [
                {
                  oldStart: 1,
                  oldLines: 2,
                  newStart: 1,
                  newLines: 2,
                  lines: [' def greet(name):', '-    return f"hello {name}"', '+    return f"hello, {name}!"'],
                },
              ],
            },
          ],
        },
        text: 'Applied patch to 1 file:\nM app.py (+1 -1)',
      },
    ],
  },
  Write: {
    requests: [{ file_path: 'notes/todo.md', content: '# TODO\n- ship it\n' }],
    responses: [
      {
        result: {
          type: 'create',
          file_path: 'notes/todo.md',
          original_file: null,
          structured_patch: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 2, lines: ['+# TODO', '+- ship it'] }],
        },
        text: 'File created successfully at: notes/todo.md',
      },
    ],
  },
  NotebookEdit: {
    requests: [
      { notebook_path: 'analysis.ipynb', cell_id: 'look', new_source: 'df.describe()' },
      { notebook_path: 'analysis.ipynb', cell_id: 'load', edit_mode: 'edit', old_string: 'data.csv', new_string: 'sales.csv' },
      { notebook_path: 'analysis.ipynb', cell_id: 'look', edit_mode: 'move', after_cell_id: '' },
    ],
    responses: [
      {
        result: { notebook_path: 'analysis.ipynb', cell_id: 'look', cell_type: 'code', language: 'python', edit_mode: 'replace' },
        text: 'Updated cell look with df.describe()',
      },
      {
        result: {
          notebook_path: 'analysis.ipynb',
          cell_id: 'load',
          cell_type: 'code',
          language: 'python',
          edit_mode: 'edit',
          match: 'exact',
        },
        text: "Edited cell load\n     2→df = pd.read_csv('sales.csv')",
      },
      {
        result: { notebook_path: 'analysis.ipynb', cell_id: 'look', cell_type: 'code', language: 'python', edit_mode: 'move' },
        text: 'Moved cell look to the top (index 1 → 0)',
      },
    ],
  },
  // Needs a Jupyter Server: captured from a real run, not replayed by the examples test.
  NotebookRun: {
    requests: [
      { notebook_path: 'analysis.ipynb', cell_id: 'look' },
      { notebook_path: 'analysis.ipynb', mode: 'all', timeout_ms: 120000 },
    ],
    responses: [
      {
        result: {
          notebook_path: 'analysis.ipynb',
          cells: [
            {
              cell_id: 'look',
              execution_count: 3,
              status: 'ok',
              outputs: [{ output_type: 'execute_result', text: '   a  b\n0  1  3\n1  2  4' }],
            },
          ],
        },
        text: 'Ran 1 cell(s) of analysis.ipynb: look ok.\n<cell id="look" status="ok" execution_count="3">\n<output type="execute_result">\n   a  b\n0  1  3\n1  2  4\n</output>\n</cell>',
      },
      {
        result: {
          notebook_path: 'analysis.ipynb',
          cells: [
            { cell_id: 'load', execution_count: 1, status: 'ok', outputs: [] },
            {
              cell_id: 'look',
              execution_count: 2,
              status: 'error',
              outputs: [
                {
                  output_type: 'error',
                  text: "---------------------------------------------------------------------------\nNameError                                 Traceback (most recent call last)\nCell In[2], line 1\n----> 1 df.head()\n\nNameError: name 'df' is not defined",
                },
              ],
            },
          ],
        },
        text: 'Ran 2 cell(s) of analysis.ipynb: load ok, look error.\n<cell id="load" status="ok" execution_count="1">\n</cell>\n<cell id="look" status="error" execution_count="2">\n<output type="error">\n---------------------------------------------------------------------------\nNameError                                 Traceback (most recent call last)\nCell In[2], line 1\n----> 1 df.head()\n\nNameError: name \'df\' is not defined\n</output>\n</cell>',
      },
    ],
  },
  // Discovery (captured from real calls on app.py and util.py; not replayed: mtimes vary).
  Glob: {
    requests: [{ pattern: '**/*.py' }],
    responses: [
      {
        result: { filenames: ['util.py', 'app.py'], num_files: 2, total_files: 2, offset: 0, truncated: false, timed_out: false },
        text: 'util.py\napp.py',
      },
    ],
  },
  Grep: {
    requests: [{ pattern: 'def \\w+', output_mode: 'content' }],
    responses: [
      {
        result: {
          mode: 'content',
          num_files: 2,
          applied_limit: 250,
          applied_offset: 0,
          timed_out: false,
          skipped_binary: 0,
          skipped_dirs: 0,
          matches: [
            { file_path: 'app.py', line: 1, text: 'def greet():', kind: 'match' },
            { file_path: 'util.py', line: 1, text: 'def shout(s):', kind: 'match' },
          ],
          total_matches: 2,
          truncated: false,
        },
        text: 'app.py:1:def greet():\nutil.py:1:def shout(s):',
      },
    ],
  },
  LS: {
    requests: [{}],
    responses: [
      {
        result: {
          path: '.',
          entries: [
            { name: 'app.py', type: 'file', size: 29, modified: '2026-12-01T11:55:02.337Z' },
            { name: 'util.py', type: 'file', size: 35, modified: '2026-12-01T11:55:02.425Z' },
          ],
          total_entries: 2,
          truncated: false,
        },
        text: 'app.py (29 B)\nutil.py (35 B)',
      },
    ],
  },
};
