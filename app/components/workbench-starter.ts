/**
 * @module The contract the Workbench's editor starts from (until the person has a draft of their
 * own): small, valid, with a member's action and an owner's. The browser test starts from it too.
 */
export const STARTER = `# Notes

A note per subject: its title and text, which members write and only an owner archives.

\`\`\`charter
namespace my.notes
version 1.0.0

aggregate Note {
  public title: Text(len=100)
  public text: Text(len=2000)
  public archived: Bool = false

  action Write(title: Text(len=100), text: Text(len=2000)) api authenticated {
    authorize member
    validate {
      len(title) > 0
      state.archived == false
    }
    apply {
      state.title = title
      state.text = text
    }
  }

  action Archive() api authenticated {
    authorize owner
    validate {
      state.archived == false
    }
    apply {
      state.archived = true
    }
  }
}
\`\`\`
`;
