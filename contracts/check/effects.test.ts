/** `effect` clauses: what the checker accepts and refuses (with its place), and what the schema keeps. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { compileContract } from "../compile.ts";
import { formatDiagnostics } from "../diagnostics.ts";

const contract = (action: string) => `# T

\`\`\`charter
namespace acme.fx
version 1.0.0

aggregate Note {
  public n: Int = 0
  public to: Text(len=100)
  public many: List<Text(len=100)>(cap=3)
  public nums: List<Int>(cap=3)
  public v: Vector(dim=2)
  public kind: Enum(Plain, Loud) = Plain

${action}
}
\`\`\`
`;

const errors = (action: string) => {
  const source = contract(action);
  return formatDiagnostics(source, compileContract(source).diagnostics).map((line) => line.split("\n")[0]);
};

describe("effect clauses", () => {
  it("accept templates of literals, parameters, state fields and context, and lists of addresses", () => {
    const source = contract(`  action Go(x: Int, who: Text(len=100)) api authenticated {
    authorize member
    apply {
      state.n = x
    }
    effect email {
      to = state.many
      cc = who
      subject = "n=" + state.n + " " + Loud + " " + true + -3
      text = "from " + context.signer + " at " + context.time + " kind " + state.kind
    }
    effect pdf {
      title = "T"
      text = who
    }
  }`);
    const out = compileContract(source);
    assert.deepEqual(out.diagnostics, []);
    const go = out.artifact?.schema.actions["Note.Go"];
    assert.deepEqual(go?.effects?.map((e) => [e.effect, e.line, e.fields.map((f) => f.field)]), [
      ["email", 20, ["to", "cc", "subject", "text"]],
      ["pdf", 26, ["title", "text"]],
    ]);
    assert.deepEqual(go?.effects?.[0]?.fields[2]?.parts, [{ text: "n=" }, { state: "n" }, { text: " " }, { text: "Loud" }, { text: " " }, { text: "true" }, { text: "-3" }]);
    assert.deepEqual(go?.effects?.[0]?.fields[3]?.parts.filter((p) => "context" in p), [{ context: "signer" }, { context: "time" }]);
  });

  it("leave an action without effects as it was: no `effects` in its schema", () => {
    const source = readFileSync(new URL("../examples/shipping.charter.md", import.meta.url), "utf8");
    const schema = compileContract(source).artifact?.schema;
    assert.ok(schema !== undefined);
    for (const action of Object.values(schema.actions)) assert.equal("effects" in action, false);
  });

  it("name each mistake at its place", () => {
    assert.deepEqual(errors(`  action Go(x: Int) api authenticated {
    authorize member
    effect fax {
      to = "a"
    }
    effect email {
      to = x * 2
      subject = state.v
      subject = "again"
      body = "b"
      text = state.nums
    }
    effect pdf {
      title = len(state.to)
      text = state.nums + "x"
    }
  }`), [
      "validation error: unknown effect `fax`: the effects are email and pdf at line 17:12",
      "type error: `to` of effect email is a template: text, numbers, parameters, state.FIELD and context.signer or context.time joined by + at line 21:12",
      "type error: `subject` of effect email cannot hold Vector(dim=2) at line 22:17",
      "validation error: `subject` is set more than once in effect email at line 23:7",
      "validation error: effect email has no field `body`; its fields are to, cc, reply_to, subject, text at line 24:7",
      "type error: `text` of effect email cannot hold List<Int>(cap=3) at line 25:14",
      "type error: `title` of effect pdf is a template: text, numbers, parameters, state.FIELD and context.signer or context.time joined by + at line 28:15",
      "type error: `text` of effect pdf cannot hold List<Int>(cap=3) at line 29:14",
    ]);
  });

  it("ask for the required fields and at most four effects", () => {
    const many = Array.from({ length: 5 }, () => `    effect pdf {\n      title = "t"\n      text = "x"\n    }`).join("\n");
    assert.deepEqual(errors(`  action Go() api authenticated {
    authorize member
    effect email {
      to = "a@example.org"
    }
${many}
  }`), [
      "validation error: effect email needs subject, text at line 17:12",
      "validation error: action Go declares more than 4 effects at line 32:5",
    ]);
  });
});
