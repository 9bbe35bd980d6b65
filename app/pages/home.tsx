/**
 * @module Home: the person's day at a glance, from `GET /api/bootstrap` — tasks due, approvals and
 * questions waiting, whether a model is set up, the node's version and update state, and the
 * contracts installed in the personal space.
 */
import { api } from "../lib/api.ts";
import type { Bootstrap } from "../lib/account.ts";
import { useFrames, useLoad } from "../lib/hooks.ts";
import { href } from "../lib/router.ts";
import { ErrorNote, PageHead } from "../components/ui.tsx";

export default function HomePage() {
  const boot = useLoad(() => api<Bootstrap>("GET", "/api/bootstrap"));
  useFrames(() => boot.reload(), (frame) => frame.kind === "commit");
  const b = boot.data;
  return (
    <>
      <PageHead title={b === null ? "Home" : `Hello, ${b.account.firstName ?? ""}`} />
      <ErrorNote error={boot.error} />
      {b === null ? null : (
        <>
          <ul class="tiles">
            <li>
              <a href={href("tasks")}>
                <span class="count">{b.counts.tasksDue ?? "—"}</span> tasks due today
              </a>
            </li>
            <li>
              <a href={href("chat")}>
                <span class="count">{b.counts.approvalsWaiting ?? "—"}</span> approvals waiting
              </a>
            </li>
            <li>
              <a href={href("chat")}>
                <span class="count">{b.counts.asksWaiting ?? "—"}</span> questions waiting
              </a>
            </li>
          </ul>
          {b.model.configured ? (
            <p>
              The assistant uses <strong>{b.model.model}</strong> through <strong>{b.model.connection}</strong>.
            </p>
          ) : (
            <p>
              The assistant has no model yet: <a href={href("settings")}>choose one in Settings</a>.
            </p>
          )}
          <section aria-labelledby="contracts-title">
            <h2 id="contracts-title">Installed contracts</h2>
            {b.tenant === null ? (
              <p>The personal space is being prepared.</p>
            ) : (
              <ul class="cards">
                {b.tenant.contracts.map((contract) => (
                  <li key={contract.namespace} class="card">
                    <a href={href("records", contract.namespace)}>{contract.namespace}</a> <span class="muted">version {contract.version}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <p class="muted">
            Charter {b.node.version}. Your identity: <code class="wrap">{b.person.did}</code>
          </p>
        </>
      )}
    </>
  );
}
