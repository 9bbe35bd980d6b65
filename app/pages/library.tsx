/**
 * @module Library: the person's files (`GET /api/library`, a page at a time, or ranked by name with
 * a search), uploaded with a progress bar each (`POST /api/library?name=…&tags=…`, the file as the
 * raw body, sent with `XMLHttpRequest` for its upload progress; a file the node refuses shows its
 * reason), downloaded (`/api/library/{id}/content?download=1`), previewed (images as an `<img>`,
 * PDFs and plain text in a frame: the content route serves them inline, sandboxed, to this origin),
 * and deleted.
 */
import { useState } from "preact/hooks";
import { api, messageOf, type Page, type Problem, Refusal, reportSessionEnded, withQuery } from "../lib/api.ts";
import type { EventFrame } from "../lib/events.ts";
import { useBusy, useFrames, useLoad } from "../lib/hooks.ts";
import { withStepUp } from "../lib/stepup.ts";
import type { PageProps } from "../routes.ts";
import { Button, Empty, ErrorNote, Field, PageHead, Status, Time } from "../components/ui.tsx";
import "./library.css";

interface LibraryFile {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly size: number;
  readonly sha256: string;
  readonly tags: readonly string[];
  readonly createdAt: string | null;
  readonly createdBy: string | null;
  readonly score?: number;
}

/** One file being uploaded, or done. */
interface Upload {
  readonly key: number;
  readonly name: string;
  readonly size: number;
  readonly loaded: number;
  readonly state: "waiting" | "sending" | "stored" | "refused";
  readonly reason: string | null;
}

const PAGE_SIZE = 50;
/** Image types an `<img>` shows (SVG is never served inline: the node sends it as a download). */
const IMAGE = /^image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)$/;
/** Types a frame shows as they are: PDFs (the browser's viewer) and plain text. */
const FRAMED = /^(application\/pdf|text\/plain|text\/markdown|text\/csv|application\/json)$/;

const essence = (type: string) => type.split(";")[0]?.trim().toLowerCase() ?? "";
const contentUrl = (file: LibraryFile) => `/api/library/${encodeURIComponent(file.id)}/content`;
const isLibrary = (frame: EventFrame) => frame.kind === "commit" && frame["namespace"] === "std.library";

/** `bytes` in words: 1.2 MB. */
function size(bytes: number): string {
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let n = bytes;
  let u = 0;
  while (n >= 1000 && u < units.length - 1) {
    n /= 1000;
    u++;
  }
  return u === 0 ? `${n} ${n === 1 ? "byte" : "bytes"}` : `${n.toFixed(n < 10 ? 1 : 0)} ${units[u]}`;
}

/**
 * Sends `file` as an upload, reporting the bytes sent; answers the stored file, or throws a Refusal
 * with the node's problem. (`fetch` cannot tell how much of a body is sent: XMLHttpRequest can.)
 */
function send(file: File, tags: string, progress: (loaded: number) => void): Promise<LibraryFile> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", withQuery("/api/library", { name: file.name, tags }));
    xhr.setRequestHeader("content-type", file.type === "" ? "application/octet-stream" : file.type);
    xhr.setRequestHeader("accept", "application/json, application/problem+json");
    xhr.upload.onprogress = (event) => progress(event.loaded);
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText === "" ? null : JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as LibraryFile);
        return;
      }
      const refusal = new Refusal(xhr.status, body as Problem | null);
      // The session ended: tell the app, as `api()` does for its own calls.
      if (xhr.status === 401) reportSessionEnded(refusal);
      reject(refusal);
    };
    xhr.onerror = () => reject(new Error("the upload was cut off before the node answered (the connection closed)"));
    xhr.onabort = () => reject(new Error("the upload was cancelled"));
    xhr.send(file);
  });
}

export default function LibraryPage(_props: PageProps) {
  const [q, setQ] = useState("");
  const [more, setMore] = useState<readonly LibraryFile[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const files = useLoad(async () => {
    const page = await api<Page<LibraryFile>>("GET", withQuery("/api/library", { limit: PAGE_SIZE, q: q.trim() }));
    setMore([]);
    setNext(page.next);
    return page;
  }, [q]);
  useFrames(files.reload, isLibrary);
  const [run, busy, error] = useBusy();
  const loadMore = () =>
    void run(async () => {
      const page = await api<Page<LibraryFile>>("GET", withQuery("/api/library", { limit: PAGE_SIZE, after: next }));
      setMore([...more, ...page.items]);
      setNext(page.next);
    });
  const shown = [...(files.data?.items ?? []), ...more];

  return (
    <>
      <PageHead title="Library">
        <p>Your files, kept on this node: each one's record is signed, its bytes stored once.</p>
      </PageHead>
      <UploadForm onStored={files.reload} />
      <section aria-labelledby="files-title">
        <h2 id="files-title">Files</h2>
        <Field label="Find a file by name">{(id) => <input id={id} type="search" value={q} maxLength={400} onInput={(e) => setQ(e.currentTarget.value)} />}</Field>
        <ErrorNote error={files.error ?? error} />
        {files.data === null ? null : shown.length === 0 ? (
          <Empty>{q.trim() === "" ? "No file yet: upload one above." : "No file has this name."}</Empty>
        ) : (
          <ul class="cards files" aria-label="Your files">
            {shown.map((file) => (
              <FileCard key={file.id} file={file} onDeleted={files.reload} />
            ))}
          </ul>
        )}
        {q.trim() === "" && next !== null ? (
          <Button busy={busy} onClick={loadMore}>
            Show more files
          </Button>
        ) : null}
      </section>
    </>
  );
}

let uploadKeys = 0;

function UploadForm(props: { onStored: () => void }) {
  const [chosen, setChosen] = useState<readonly File[]>([]);
  const [tags, setTags] = useState("");
  const [uploads, setUploads] = useState<readonly Upload[]>([]);
  const [sending, setSending] = useState(false);
  const [inputKey, setInputKey] = useState(0);

  const start = async (event: Event) => {
    event.preventDefault();
    if (chosen.length === 0 || sending) return;
    const batch = chosen.map((file) => ({ file, upload: { key: ++uploadKeys, name: file.name, size: file.size, loaded: 0, state: "waiting", reason: null } as Upload }));
    setUploads(batch.map((b) => b.upload));
    setChosen([]);
    setInputKey((k) => k + 1);
    setSending(true);
    const update = (key: number, change: Partial<Upload>) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...change } : u)));
    // One at a time: each gets the connection's whole speed, and its bar moves steadily.
    for (const { file, upload } of batch) {
      update(upload.key, { state: "sending" });
      try {
        await send(file, tags.trim(), (loaded) => update(upload.key, { loaded }));
        update(upload.key, { state: "stored", loaded: file.size });
        props.onStored();
      } catch (failure) {
        update(upload.key, { state: "refused", reason: messageOf(failure) });
      }
    }
    setSending(false);
  };

  const stored = uploads.filter((u) => u.state === "stored").length;
  const refused = uploads.filter((u) => u.state === "refused").length;
  return (
    <section aria-labelledby="upload-title">
      <h2 id="upload-title">Upload</h2>
      <form class="upload-form" onSubmit={(e) => void start(e)}>
        <Field label="Files to upload" hint="Choose one or several.">
          {(id, describedBy) => (
            <input key={inputKey} id={id} type="file" multiple aria-describedby={describedBy} onChange={(e) => setChosen([...(e.currentTarget.files ?? [])])} />
          )}
        </Field>
        <Field label="Tags (optional)" hint="Separated by commas.">
          {(id, describedBy) => <input id={id} aria-describedby={describedBy} value={tags} maxLength={900} placeholder="taxes, 2026" onInput={(e) => setTags(e.currentTarget.value)} />}
        </Field>
        <div class="buttons">
          <Button type="submit" kind="primary" busy={sending} disabled={chosen.length === 0}>
            {chosen.length > 1 ? `Upload ${chosen.length} files` : "Upload"}
          </Button>
        </div>
      </form>
      {uploads.length === 0 ? null : (
        <>
          <ul class="uploads" aria-label="Uploads">
            {uploads.map((u) => (
              <UploadRow key={u.key} upload={u} />
            ))}
          </ul>
          {sending ? null : (
            <Status>
              {stored} of {uploads.length} {uploads.length === 1 ? "file" : "files"} stored{refused > 0 ? `, ${refused} refused` : ""}.
            </Status>
          )}
        </>
      )}
    </section>
  );
}

function UploadRow(props: { upload: Upload }) {
  const u = props.upload;
  const id = `upload-${u.key}`;
  const percent = u.size === 0 ? (u.state === "stored" ? 100 : 0) : Math.round((100 * u.loaded) / u.size);
  const words = u.state === "waiting" ? "waiting" : u.state === "sending" ? `${percent}% sent` : u.state === "stored" ? "stored" : "refused";
  return (
    <li class={`upload ${u.state}`} data-state={u.state}>
      <label for={id}>
        {u.name} <span class="muted">({size(u.size)})</span>
      </label>
      <progress id={id} max={Math.max(u.size, 1)} value={u.state === "stored" ? Math.max(u.size, 1) : u.loaded} aria-valuetext={words}>
        {percent}%
      </progress>
      <span class="upload-state">{words}</span>
      {u.state === "refused" ? (
        <p class="error" role="alert">
          {u.name}: {u.reason}
        </p>
      ) : null}
    </li>
  );
}

function FileCard(props: { file: LibraryFile; onDeleted: () => void }) {
  const { file } = props;
  const type = essence(file.type);
  const kind = IMAGE.test(type) ? "image" : FRAMED.test(type) ? "frame" : null;
  const [open, setOpen] = useState(false);
  const [asked, setAsked] = useState(false);
  const [run, busy, error] = useBusy();
  const previewId = `preview-${file.id}`;
  return (
    <li class="card file">
      <div class="file-head">
        <div class="file-what">
          <strong class="file-name">{file.name}</strong>
          <span class="badge">{type || "unknown type"}</span>
          <div class="muted">
            {size(file.size)} · added <Time when={file.createdAt} />
            {file.tags.length > 0 ? (
              <>
                {" "}
                · tags:{" "}
                {file.tags.map((tag) => (
                  <span key={tag} class="badge">
                    {tag}
                  </span>
                ))}
              </>
            ) : null}
          </div>
        </div>
        <div class="buttons">
          {kind === null ? null : (
            <Button aria-expanded={open ? "true" : "false"} aria-controls={previewId} aria-label={open ? `Hide preview of ${file.name}` : `Preview ${file.name}`} onClick={() => setOpen(!open)}>
              {open ? "Hide preview" : "Preview"}
            </Button>
          )}
          <a class="btn plain" href={`${contentUrl(file)}?download=1`} download={file.name} aria-label={`Download ${file.name}`}>
            Download
          </a>
          {asked ? (
            <>
              <Button kind="danger" busy={busy} aria-label={`Delete it (${file.name})`} onClick={() => void run(() => withStepUp(() => api("DELETE", `/api/library/${encodeURIComponent(file.id)}`))).then(props.onDeleted)}>
                Delete it
              </Button>
              <Button aria-label={`Keep it (${file.name})`} onClick={() => setAsked(false)}>
                Keep it
              </Button>
            </>
          ) : (
            <Button kind="danger" aria-label={`Delete ${file.name}`} onClick={() => setAsked(true)}>
              Delete
            </Button>
          )}
        </div>
      </div>
      <ErrorNote error={error} />
      {open ? (
        <div id={previewId} class="preview">
          {kind === "image" ? <img src={contentUrl(file)} alt={file.name} class="preview-image" /> : <iframe src={contentUrl(file)} title={`Preview of ${file.name}`} class={type === "application/pdf" ? "preview-frame pdf" : "preview-frame"} />}
        </div>
      ) : null}
    </li>
  );
}
