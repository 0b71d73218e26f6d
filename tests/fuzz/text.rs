//! Mutations of a file's bytes: truncation, flipped bits, inserted invalid
//! UTF-8 and YAML syntax (anchors, aliases, tags, document markers, extra
//! documents), deleted, duplicated and swapped lines, CRLF and a BOM.

use proptest::prelude::*;

#[derive(Clone, Debug)]
pub enum TextOp {
    /// Cut the file at a byte.
    Truncate(u32),
    /// XOR one byte with a mask.
    Flip(u32, u8),
    /// Insert bytes at a position.
    Insert(u32, Vec<u8>),
    /// Remove a run of bytes.
    Remove(u32, u16),
    /// Copy a line after itself (duplicated keys in block YAML).
    DupLine(u32),
    /// Remove a line.
    DropLine(u32),
    /// Swap two lines.
    SwapLines(u32, u32),
    /// Append another document.
    AppendDoc(Vec<u8>),
    /// Every `\n` becomes `\r\n`.
    Crlf,
    /// A UTF-8 byte-order mark in front.
    Bom,
}

fn fragment() -> impl Strategy<Value = Vec<u8>> {
    let fixed: Vec<&[u8]> = vec![
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xc0\xaf",
        b"\0",
        b"\t",
        b"\r",
        b"\n",
        b"---\n",
        b"...\n",
        b"--- |\n",
        b"%YAML 1.1\n---\n",
        b"%TAG ! tag:x,2000:\n---\n",
        b"&a ",
        b"*a",
        b"*a ",
        b"<<: *a\n",
        b"x: &r [*r]\n",
        b"!!map ",
        b"!!seq ",
        b"!!binary ",
        b"!local ",
        b"? ",
        b": ",
        b"- ",
        b"{",
        b"}",
        b"[",
        b"]",
        b"\"",
        b"'",
        b"#",
        b"|\n",
        b">-\n",
        b",",
        b"\\u0000",
        b"\\",
        "\u{202e}".as_bytes(),
        "\u{200d}🦀".as_bytes(),
        "e\u{301}".as_bytes(),
        b"9223372036854775808",
        b"-1",
        b"1e308",
        b".nan",
    ];
    prop_oneof![
        8 => proptest::sample::select(fixed).prop_map(<[u8]>::to_vec),
        1 => proptest::collection::vec(any::<u8>(), 1..8),
        1 => (1usize..10_000).prop_map(|n| vec![b'['; n]),
    ]
}

fn extra_doc() -> impl Strategy<Value = Vec<u8>> {
    proptest::sample::select(vec![
        "---\n",
        "---\n{}\n",
        "---\nnull\n",
        "---\n- 1\n- 2\n",
        "---\nkind: Pod\n",
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: extra}\nspec: {containers: [{name: c, image: busybox}]}\n",
        "...\n---\n&a [*a]\n",
        "--- !!str\ntext\n",
        "---\n\u{0}\n",
    ])
    .prop_map(|s| s.as_bytes().to_vec())
}

pub fn op() -> impl Strategy<Value = TextOp> {
    prop_oneof![
        2 => any::<u32>().prop_map(TextOp::Truncate),
        3 => (any::<u32>(), 1u8..=255).prop_map(|(i, m)| TextOp::Flip(i, m)),
        5 => (any::<u32>(), fragment()).prop_map(|(i, b)| TextOp::Insert(i, b)),
        1 => (any::<u32>(), 1u16..64).prop_map(|(i, n)| TextOp::Remove(i, n)),
        3 => any::<u32>().prop_map(TextOp::DupLine),
        2 => any::<u32>().prop_map(TextOp::DropLine),
        1 => (any::<u32>(), any::<u32>()).prop_map(|(a, b)| TextOp::SwapLines(a, b)),
        2 => extra_doc().prop_map(TextOp::AppendDoc),
        1 => Just(TextOp::Crlf),
        1 => Just(TextOp::Bom),
    ]
}

/// Zero to `max` text mutations (none most often, when structural ones run too).
pub fn ops(max: usize) -> impl Strategy<Value = Vec<TextOp>> {
    proptest::collection::vec(op(), 0..=max)
}

/// Byte ranges of the lines of `b` (each with its `\n`).
fn lines(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in b.iter().enumerate() {
        if *c == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < b.len() {
        out.push((start, b.len()));
    }
    out
}

pub fn apply(mut b: Vec<u8>, ops: &[TextOp]) -> Vec<u8> {
    for op in ops {
        let at = |i: u32, len: usize| i as usize % (len + 1);
        match op {
            TextOp::Truncate(i) => b.truncate(at(*i, b.len())),
            TextOp::Flip(i, m) => {
                if !b.is_empty() {
                    let i = *i as usize % b.len();
                    b[i] ^= m;
                }
            }
            TextOp::Insert(i, bytes) => {
                let i = at(*i, b.len());
                b.splice(i..i, bytes.iter().copied());
            }
            TextOp::Remove(i, n) => {
                let i = at(*i, b.len());
                let end = (i + *n as usize).min(b.len());
                b.drain(i..end);
            }
            TextOp::DupLine(i) | TextOp::DropLine(i) => {
                let ls = lines(&b);
                if ls.is_empty() {
                    continue;
                }
                let (s, e) = ls[*i as usize % ls.len()];
                if matches!(op, TextOp::DupLine(_)) {
                    let line = b[s..e].to_vec();
                    b.splice(e..e, line);
                } else {
                    b.drain(s..e);
                }
            }
            TextOp::SwapLines(x, y) => {
                let ls = lines(&b);
                if ls.len() < 2 {
                    continue;
                }
                let (mut x, mut y) = (*x as usize % ls.len(), *y as usize % ls.len());
                if x > y {
                    std::mem::swap(&mut x, &mut y);
                }
                if x == y {
                    continue;
                }
                let (a, c) = (ls[x], ls[y]);
                let mut out = b[..a.0].to_vec();
                out.extend_from_slice(&b[c.0..c.1]);
                out.extend_from_slice(&b[a.1..c.0]);
                out.extend_from_slice(&b[a.0..a.1]);
                out.extend_from_slice(&b[c.1..]);
                b = out;
            }
            TextOp::AppendDoc(doc) => {
                if !b.ends_with(b"\n") {
                    b.push(b'\n');
                }
                b.extend_from_slice(doc);
            }
            TextOp::Crlf => {
                let mut out = Vec::with_capacity(b.len() + b.len() / 16);
                for c in b {
                    if c == b'\n' {
                        out.push(b'\r');
                    }
                    out.push(c);
                }
                b = out;
            }
            TextOp::Bom => b.splice(0..0, [0xef, 0xbb, 0xbf]).for_each(drop),
        }
    }
    b
}

#[test]
fn line_edits_keep_the_other_lines() {
    let b = b"a\nb\nc".to_vec();
    assert_eq!(apply(b.clone(), &[TextOp::SwapLines(0, 2)]), b"cb\na\n");
    assert_eq!(apply(b.clone(), &[TextOp::DupLine(1)]), b"a\nb\nb\nc");
    assert_eq!(apply(b, &[TextOp::DropLine(0), TextOp::Truncate(2)]), b"b\n");
}
