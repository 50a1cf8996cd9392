//! Text from the cluster on its way to a terminal or a shell: quoting suggested commands and
//! stripping control characters.
//!
//! Why: node names, label keys and taint keys in a hand-written dump are whatever the file
//! says. A node named `w1;touch /tmp/x` turned the suggested `kubectl label nodes …` into two
//! commands, and an escape sequence in a label reached the terminal as is (issue 15). Every
//! command the rules suggest is built from arguments with [`shell_command`]; text output for
//! terminals passes cluster-derived strings through [`strip_control`].

/// Characters that need no quoting in a POSIX shell word.
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, '-' | '_' | '.' | '/' | '=' | ':' | ',' | '@' | '%' | '+')
}

/// One argument as a POSIX shell word: as is when it is made only of plain characters (and
/// is not empty), else in single quotes, with each `'` written as `'\''`.
pub fn shell_quote(arg: &str) -> String {
    if !arg.is_empty() && arg.chars().all(is_plain) {
        return arg.to_string();
    }
    format!("'{}'", arg.replace('\'', "'\\''"))
}

/// A command line a person can paste: every argument quoted with [`shell_quote`].
pub fn shell_command(argv: &[&str]) -> String {
    argv.iter()
        .map(|a| shell_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The text without control characters (C0, DEL, C1: escape sequences, carriage returns,
/// newlines), so a string from the cluster prints as one inert line on a terminal.
pub fn strip_control(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_and_everything_else_is_single_quoted() {
        assert_eq!(shell_quote("worker-3"), "worker-3");
        assert_eq!(shell_quote("example.com/gpu=true"), "example.com/gpu=true");
        assert_eq!(shell_quote("w1;touch /tmp/x"), "'w1;touch /tmp/x'");
        assert_eq!(shell_quote("$(reboot)"), "'$(reboot)'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("$(rm -rf /)"), "'$(rm -rf /)'");
        assert_eq!(shell_quote("say \"hi\""), "'say \"hi\"'");
        assert_eq!(shell_quote("ünïcode"), "'ünïcode'");
        assert_eq!(shell_quote("`id`"), "'`id`'");
    }

    #[test]
    fn a_node_name_with_a_semicolon_stays_one_argument() {
        // Issue 15 reproduction 7: `kubectl label nodes w1;touch /tmp/x k=v` ran `touch`.
        assert_eq!(
            shell_command(&["kubectl", "label", "nodes", "w1;touch /tmp/x", "k=v"]),
            "kubectl label nodes 'w1;touch /tmp/x' k=v"
        );
    }

    #[test]
    fn escape_sequences_and_line_breaks_are_stripped() {
        assert_eq!(strip_control("red\u{1b}[31mtext\u{7}"), "red[31mtext");
        assert_eq!(strip_control("a\r\nb\u{9b}c\u{7f}"), "abc");
        assert_eq!(strip_control("ünïcode ok"), "ünïcode ok");
    }
}
