/** @module The shipping example (spec §3.1) as a checked tree, for back-end tests that run without the front end. */
import { buildContract, E, T } from "./ast-builder.ts";
import type { Contract } from "../ast.ts";

const Status = T.enum("New", "Requested", "Confirmed", "Shipped");
const s = (f: string, t = T.int) => E.state(f, t);
const st = (v: string) => E.value(v, Status);
const status = () => s("status", Status);

/** `{contract, source}` for the shipping contract (unit limit 100, restricted destination "Embargoed"). */
export function shippingContract(): { contract: Contract; source: string } {
  return buildContract({
    namespace: "acme.shipping",
    aggregates: [{
      name: "Order",
      fields: [
        ["status", Status, st("New")],
        ["customer", T.text(200)],
        ["destination", T.text(100)],
        ["units", T.int, E.int(0)],
        ["crates", T.int, E.int(0)],
        ["crates_checked", T.int, E.int(0)],
        ["paid", T.bool, E.bool(false)],
        ["credit_terms", T.bool, E.bool(false)],
        ["requested_by", T.identity],
        ["confirmed_by", T.identity],
      ],
      actions: [
        {
          name: "Request",
          params: [["customer", T.text(200)], ["destination", T.text(100)], ["units", T.int], ["crates", T.int], ["credit_terms", T.bool]],
          validate: [E.bin("==", status(), st("New")), E.bin(">", E.param("units", T.int), E.int(0)), E.bin(">", E.param("crates", T.int), E.int(0))],
          apply: [
            ["status", st("Requested")],
            ["customer", E.param("customer", T.text(200))],
            ["destination", E.param("destination", T.text(100))],
            ["units", E.param("units", T.int)],
            ["crates", E.param("crates", T.int)],
            ["credit_terms", E.param("credit_terms", T.bool)],
            ["requested_by", E.signer()],
          ],
        },
        {
          name: "CheckCrate",
          merge: "commute",
          validate: [E.bin("==", status(), st("Requested")), E.bin("<", s("crates_checked"), s("crates"))],
          apply: [["crates_checked", E.bin("+", s("crates_checked"), E.int(1))]],
        },
        {
          name: "Confirm",
          merge: "reject",
          validate: [E.bin("==", status(), st("Requested")), E.bin("!=", E.signer(), s("requested_by", T.identity))],
          apply: [["status", st("Confirmed")], ["confirmed_by", E.signer()]],
        },
        {
          name: "Pay",
          validate: [E.bin("!=", status(), st("New")), E.bin("==", s("paid", T.bool), E.bool(false))],
          apply: [["paid", E.bool(true)]],
        },
        {
          name: "Ship",
          validate: [
            E.bin("or", s("paid", T.bool), s("credit_terms", T.bool)),
            E.bin("==", s("crates_checked"), s("crates")),
            E.bin("or", E.bin("==", status(), st("Requested")), E.bin("==", status(), st("Confirmed"))),
            E.bin("or", E.bin("==", status(), st("Confirmed")), E.bin("<=", s("units"), E.int(100))),
            E.bin("or", E.bin("==", status(), st("Confirmed")), E.bin("!=", s("destination", T.text(100)), E.text("Embargoed"))),
          ],
          apply: [["status", st("Shipped")]],
        },
      ],
    }],
  });
}
