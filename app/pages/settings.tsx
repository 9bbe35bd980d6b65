/**
 * @module Settings: one section at a time (`#/settings/<section>`), each a form over its route —
 * models and their connections, the assistant's tools and tool servers, sign-in and the time zone,
 * updates, email, webhooks, autonomy. A change the node refuses shows each field's reason next to
 * it; a sensitive one asks for the passkey first (the step-up prompt).
 */
import type { ComponentType } from "preact";
import { href } from "../lib/router.ts";
import type { PageProps } from "../routes.ts";
import { PageHead } from "../components/ui.tsx";
import { ModelSettings } from "../components/settings-models.tsx";
import { ToolSettings } from "../components/settings-tools.tsx";
import { AutonomySettings, SignInSettings, UpdateSettingsSection } from "../components/settings-node.tsx";
import { EmailSettings, WebhookSettings } from "../components/settings-comms.tsx";
import "./settings.css";

const SECTIONS: readonly { readonly id: string; readonly title: string; readonly body: ComponentType }[] = [
  { id: "models", title: "Models", body: ModelSettings },
  { id: "tools", title: "Tools", body: ToolSettings },
  { id: "sign-in", title: "Sign-in and time zone", body: SignInSettings },
  { id: "updates", title: "Updates", body: UpdateSettingsSection },
  { id: "email", title: "Email", body: EmailSettings },
  { id: "webhooks", title: "Webhooks", body: WebhookSettings },
  { id: "autonomy", title: "Autonomy", body: AutonomySettings },
];

export default function SettingsPage(props: PageProps) {
  const section = SECTIONS.find((s) => s.id === props.rest[0]) ?? (SECTIONS[0] as (typeof SECTIONS)[number]);
  const Body = section.body;
  return (
    <>
      <PageHead title="Settings">
        <p>How the assistant works, how you sign in, and how this node keeps itself.</p>
      </PageHead>
      <nav aria-label="Settings sections" class="settings-nav">
        <ul>
          {SECTIONS.map((s) => (
            <li key={s.id}>
              <a href={href("settings", s.id)} aria-current={s.id === section.id ? "page" : undefined}>
                {s.title}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <section aria-labelledby="settings-section-title" class="settings-section">
        <h2 id="settings-section-title">{section.title}</h2>
        <Body key={section.id} />
      </section>
    </>
  );
}
