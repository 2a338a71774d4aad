/**
 * The files of Claude's memory tool (`/memories/...`: each file a keyed memory of the
 * namespace, every edit a version; `@zeromem/tools`) as a tree: directories are the paths'
 * prefixes, and each file opens to its versions, oldest first, each with its text and the
 * time it held. Native disclosure elements (`details`), so the keyboard and screen
 * readers work the tree without any code of ours.
 */
import type { MemoryFileVersion } from '@zeromem/tools';

/** A file: its path (`/memories/...`), its size in bytes and its versions, oldest first (`createMemoryTool`'s `files()` and `history()`). */
export interface MemoryFile {
  path: string;
  bytes: number;
  versions: readonly MemoryFileVersion[];
}

/** A directory of the tree: its path, and what is in it, directories first, each sorted by name. */
export interface DirectoryNode {
  name: string;
  path: string;
  directories: DirectoryNode[];
  files: Array<MemoryFile & { name: string }>;
}

/** The root every memory path lives in, as Anthropic's tool names it. */
const ROOT = '/memories';

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The tree of `files` under `/memories` (paths outside it are left out). */
export function fileTree(files: readonly MemoryFile[]): DirectoryNode {
  const root: DirectoryNode = { name: ROOT, path: ROOT, directories: [], files: [] };
  for (const file of files) {
    if (!file.path.startsWith(`${ROOT}/`)) continue;
    const segments = file.path.slice(ROOT.length + 1).split('/');
    let dir = root;
    for (const segment of segments.slice(0, -1)) {
      let next = dir.directories.find((d) => d.name === segment);
      if (!next) dir.directories.push((next = { name: segment, path: `${dir.path}/${segment}`, directories: [], files: [] }));
      dir = next;
    }
    dir.files.push({ ...file, name: segments.at(-1)! });
  }
  const sort = (dir: DirectoryNode) => {
    dir.directories.sort(byName).forEach(sort);
    dir.files.sort(byName);
  };
  sort(root);
  return root;
}

/** Why a version stopped being the file's text, when not by the next edit. */
function ending(version: MemoryFileVersion): string {
  if (version.ended === 'delete') return ' (deleted)';
  if (version.ended === 'rename') return ` (renamed to ${version.renamedTo})`;
  return '';
}

function formatTime(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The memory tool's files as a tree; each directory open, each file closed until clicked. */
export function MemoryFileTree({ files }: { files: readonly MemoryFile[] }) {
  const root = fileTree(files);
  return (
    <section class="memory-files" aria-labelledby="memory-files-title" data-testid="memory-files">
      <h3 id="memory-files-title">
        Claude’s memory files <span class="muted">what the memory tool keeps under {ROOT}; open a file for its versions</span>
      </h3>
      <ul class="file-tree" aria-label={ROOT}>
        <DirectoryItems dir={root} />
      </ul>
    </section>
  );
}

function DirectoryItems({ dir }: { dir: DirectoryNode }) {
  return (
    <>
      {dir.directories.map((child) => (
        <li key={child.path} class="tree-dir" data-path={child.path}>
          <details open>
            <summary>
              <span class="mono">{child.name}/</span>
            </summary>
            <ul>
              <DirectoryItems dir={child} />
            </ul>
          </details>
        </li>
      ))}
      {dir.files.map((file) => {
        const current = file.versions.at(-1);
        return (
          <li key={file.path} class="tree-file" data-path={file.path}>
            <details>
              <summary>
                <span class="mono">{file.name}</span>{' '}
                <span class="muted">
                  {file.versions.length === 1 ? '1 version' : `${file.versions.length} versions`}
                  {` · ${file.bytes} B`}
                  {current ? ` · since ${formatTime(current.from)}` : ''}
                </span>
              </summary>
              <ol class="file-versions" aria-label={`Versions of ${file.path}, oldest first`}>
                {file.versions.map((version, i) => (
                  <li key={version.id} class={version === current ? 'file-version current' : 'file-version'} data-id={version.id}>
                    <p class="muted">
                      Version {i + 1} · {formatTime(version.from)} – {version.until === null ? 'now (current)' : `${formatTime(version.until)}${ending(version)}`}
                    </p>
                    <pre>{version.text}</pre>
                  </li>
                ))}
              </ol>
            </details>
          </li>
        );
      })}
    </>
  );
}
