//! The check every free text a person types or uploads passes (rewrites, sentences, titles):
//! no control characters, and at least one visible character. Lengths stay with each field.
//! Typed text with a control character is refused; uploaded corpora have their control
//! characters made spaces first ([`controls_to_spaces`]): real corpora carry a few (MSRP has a
//! U+0012), and one should not sink a file.

/// Why a text was refused; `Display` completes "The sentence ...".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TextProblem {
    /// The text is empty or only blanks.
    #[error("is empty")]
    Empty,
    /// Only invisible characters (zero-width, direction marks and the like).
    #[error("has no visible characters (only spaces, zero-width or direction marks)")]
    Invisible,
    /// A refused control character, by code point.
    #[error("contains the control character U+{0:04X}")]
    Control(u32),
    /// A U+FFFD replacement character, left by a wrong decoding.
    #[error("contains U+FFFD, the mark of text in a broken or wrong encoding")]
    BrokenEncoding,
}

/// Characters that show nothing on their own: whitespace, zero-width characters, joiners,
/// direction marks and embeddings, the byte order mark, soft hyphens.
pub fn is_invisible(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '\u{00ad}'
                | '\u{034f}'
                | '\u{061c}'
                | '\u{115f}'
                | '\u{1160}'
                | '\u{180e}'
                | '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{206f}'
                | '\u{3164}'
                | '\u{fe00}'..='\u{fe0f}'
                | '\u{feff}'
                | '\u{ffa0}'
        )
}

/// Control characters (C0, DEL, C1) other than tab and line breaks, which count as spaces.
fn is_refused_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// `text` with every refused control character (NUL included) replaced by a space.
pub fn controls_to_spaces(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(is_refused_control) {
        text.chars()
            .map(|c| if is_refused_control(c) { ' ' } else { c })
            .collect::<String>()
            .into()
    } else {
        text.into()
    }
}

/// Checks typed or uploaded free text: no control characters, something visible.
pub fn check(text: &str) -> Result<(), TextProblem> {
    if let Some(c) = text.chars().find(|c| is_refused_control(*c)) {
        return Err(TextProblem::Control(c as u32));
    }
    if text.contains('\u{fffd}') {
        return Err(TextProblem::BrokenEncoding);
    }
    if text.trim().is_empty() {
        return Err(TextProblem::Empty);
    }
    if text.chars().all(is_invisible) {
        return Err(TextProblem::Invisible);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_and_unusual_but_visible_text_passes() {
        for ok in [
            "A plain sentence.",
            "line one\r\nline two\tand a tab",
            "\u{202e}txet desrever",
            "Ze\u{301}bra 😀 👨‍👩‍👧",
            "هذه جملة",
            "<script>alert(1)</script>",
            "\u{feff}text after a BOM",
        ] {
            assert_eq!(check(ok), Ok(()), "{ok:?}");
        }
    }

    #[test]
    fn uploaded_text_has_its_control_characters_made_spaces() {
        assert_eq!(controls_to_spaces("a\u{12}b\0c\u{85}d\te"), "a b c d\te");
        assert!(matches!(
            controls_to_spaces("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            check(&controls_to_spaces("\0\u{1}")),
            Err(TextProblem::Empty)
        );
    }

    #[test]
    fn empty_invisible_and_control_text_is_refused() {
        assert_eq!(check(""), Err(TextProblem::Empty));
        assert_eq!(check(" \t\r\n\u{a0}\u{3000}"), Err(TextProblem::Empty));
        assert_eq!(
            check("\u{200b}\u{200c}\u{200d}\u{feff}"),
            Err(TextProblem::Invisible)
        );
        assert_eq!(check("\u{202e}\u{2066} "), Err(TextProblem::Invisible));
        assert_eq!(check("a\0b"), Err(TextProblem::Control(0)));
        assert_eq!(check("bell\u{7}"), Err(TextProblem::Control(7)));
        assert_eq!(check("a\u{7f}"), Err(TextProblem::Control(0x7f)));
        assert_eq!(check("a\u{85}b"), Err(TextProblem::Control(0x85)));
        // What a lossy decoder makes of invalid UTF-8.
        assert_eq!(check("caf\u{fffd}"), Err(TextProblem::BrokenEncoding));
        assert_eq!(
            TextProblem::Control(0x1b).to_string(),
            "contains the control character U+001B"
        );
    }
}
