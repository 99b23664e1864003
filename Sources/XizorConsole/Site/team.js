// The app's people: members and their roles (change, remove) and invitations (invite, the link
// shown once, revoke). Changes need the `members` scope: an owner's, or a key's.
import { get, post, put, del } from "./api.js";
import { h, show, field, problemBox, time, announce, fill, submitter } from "./dom.js";

const ROLES = ["viewer", "editor", "admin", "owner"];

function roleSelect(name, value) {
  return h("select", { name }, ROLES.map((role) => h("option", { value: role, selected: role === value ? "" : null }, role)));
}

export async function teamView() {
  const members = h("div", {});
  const invitations = h("div", {});
  const created = h("div", { "aria-live": "polite" });
  const errors = h("div", {});
  const email = h("input", { type: "email", name: "inviteEmail", required: true, spellcheck: "false" });
  const role = roleSelect("inviteRole", "editor");
  const form = h("form", {
    class: "card",
    onsubmit: submitter(errors, async () => {
      const invitation = await post("/v1/invitations", { email: email.value.trim(), role: role.value });
      const link = invitation.link || `${location.origin}${location.pathname}#/invitation/${invitation.token}`;
      fill(created, h("div", { class: "notice" },
        h("p", {}, invitation.mail === "sent"
          ? `Invitation mailed to ${invitation.email}. The link, shown this once, works once for 7 days:`
          : `Send ${invitation.email} this link, shown this once; it works once for 7 days:`),
        h("code", { class: "secret", "data-testid": "invitation-link" }, link)));
      announce("Invitation created.");
      email.value = "";
      await refresh();
    }),
  }, h("h2", {}, "Invite someone"), field("Email", email), field("Role", role), errors,
  h("button", { type: "submit" }, "Invite"));

  async function refresh() {
    try {
      const team = await get("/v1/members");
      fill(members, h("table", {},
        h("caption", {}, "Members"),
        h("thead", {}, h("tr", {}, ["Email", "Role", "Since", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, team.members.map((member) => {
          const select = roleSelect("role", member.role);
          select.setAttribute("aria-label", `Role of ${member.email}`);
          select.addEventListener("change", async () => {
            try {
              await put(`/v1/members/${encodeURIComponent(member.userId)}`, { role: select.value });
              announce(`${member.email} is now ${select.value}.`);
            } catch (error) {
              fill(errors, problemBox(error));
              select.value = member.role;
            }
          });
          return h("tr", { "data-member": member.userId },
            h("td", {}, member.email), h("td", {}, select), h("td", {}, time(member.createdAt)),
            h("td", {}, h("button", {
              type: "button", class: "danger", "aria-label": `Remove ${member.email}`,
              onclick: async () => {
                if (!confirm(`Remove ${member.email} from this app? Their sessions end at once.`)) return;
                try {
                  await del(`/v1/members/${encodeURIComponent(member.userId)}`);
                  announce("Member removed.");
                  await refresh();
                } catch (error) {
                  fill(errors, problemBox(error));
                }
              },
            }, "Remove")));
        }))));
    } catch (error) {
      fill(members, problemBox(error));
    }
    try {
      const list = await get("/v1/invitations");
      fill(invitations, list.invitations.length === 0 ? h("p", {}, "No invitations yet.") : h("table", {},
        h("caption", {}, "Invitations"),
        h("thead", {}, h("tr", {}, ["Email", "Role", "State", "Expires", ""].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, list.invitations.map((invitation) => h("tr", { "data-invitation": invitation.id },
          h("td", {}, invitation.email), h("td", {}, invitation.role), h("td", {}, invitation.state),
          h("td", {}, time(invitation.expiresAt)),
          h("td", {}, invitation.state !== "pending" ? null : h("button", {
            type: "button", class: "secondary", "aria-label": `Revoke the invitation of ${invitation.email}`,
            onclick: async () => {
              try {
                await del(`/v1/invitations/${encodeURIComponent(invitation.id)}`);
                announce("Invitation revoked.");
                await refresh();
              } catch (error) {
                fill(errors, problemBox(error));
              }
            },
          }, "Revoke")))))));
    } catch (error) {
      // Only owners (the `members` scope) see invitations: others see the members alone.
      fill(invitations, error.code === "missing_scope" ? null : problemBox(error));
    }
  }

  show(h("h1", {}, "Team"), created, members, invitations, form);
  await refresh();
}
