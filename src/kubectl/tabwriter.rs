//! kubectl's tabwriter (k8s.io/cli-runtime/pkg/printers `GetNewTabWriter`:
//! minwidth 6, padding 3, spaces): each cell but a line's last is padded to
//! its column's width, the widest cell plus 3. kubectl's fork of Go's
//! tabwriter remembers the widths across flushes and only widens them
//! (kubernetes#72418), so `get -w` stays aligned as events come.

/// `tabwriterMinWidth`, `tabwriterPadding`.
const MIN_WIDTH: usize = 6;
const PADDING: usize = 3;

/// A tabwriter and the column widths it has used so far.
#[derive(Default)]
pub struct TabWriter {
    widths: Vec<usize>,
}

impl TabWriter {
    /// Writes `rows` as one flush: the columns widen to fit them, never narrow.
    pub fn flush(&mut self, rows: &[Vec<String>]) -> String {
        for row in rows {
            // The last cell ends the line, not a column.
            for (i, cell) in row.iter().enumerate().take(row.len().saturating_sub(1)) {
                let w = (cell.chars().count() + PADDING).max(MIN_WIDTH);
                match self.widths.get_mut(i) {
                    Some(x) => *x = (*x).max(w),
                    None => self.widths.push(w),
                }
            }
        }
        let mut out = String::new();
        for row in rows {
            for (i, cell) in row.iter().enumerate() {
                out.push_str(cell);
                if i + 1 < row.len() {
                    let pad = self.widths[i].saturating_sub(cell.chars().count());
                    out.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str]) -> Vec<String> {
        cells.iter().map(|c| c.to_string()).collect()
    }

    /// kubernetes#72418's example: `kubectl get ns -w`. The list is one
    /// flush; each event another, which widens NAME once a longer name comes.
    #[test]
    fn widths_grow_across_flushes_and_never_shrink() {
        let mut w = TabWriter::default();
        let list = w.flush(&[
            row(&["NAME", "STATUS", "AGE"]),
            row(&["default", "Active", "9h"]),
            row(&["kube-system", "Active", "9h"]),
        ]);
        assert_eq!(list, "NAME          STATUS   AGE\ndefault       Active   9h\nkube-system   Active   9h\n");
        assert_eq!(w.flush(&[row(&["ns1", "Active", "0s"])]), "ns1           Active   0s\n");
        assert_eq!(
            w.flush(&[row(&["ns-with-a-really-long-name", "Active", "0s"])]),
            "ns-with-a-really-long-name   Active   0s\n"
        );
        assert_eq!(w.flush(&[row(&["ns1", "Terminating", "13s"])]), "ns1                          Terminating   13s\n");
    }

    #[test]
    fn a_column_is_at_least_six_wide() {
        let mut w = TabWriter::default();
        assert_eq!(w.flush(&[row(&["A", "B"])]), "A     B\n");
    }
}

/// Go's `text/tabwriter` as `kubectl describe` sets it up (`tabbedString`:
/// minwidth 0, padding 2, spaces): each tab-terminated cell belongs to a
/// column, and a column's width is set per block of consecutive lines that
/// have a cell in it (a line without one ends the block), to the widest
/// cell plus the padding; the text after a line's last tab is not padded.
pub fn go_tabwriter(text: &str, min_width: usize, padding: usize) -> String {
    let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    let mut out = String::new();
    let mut widths = Vec::new();
    format(&lines, 0, lines.len(), &mut widths, min_width, padding, &mut out);
    out
}

/// `Writer.format`: the column blocks of column `widths.len()` within lines `from..to`.
fn format(
    lines: &[Vec<&str>],
    from: usize,
    to: usize,
    widths: &mut Vec<usize>,
    min_width: usize,
    padding: usize,
    out: &mut String,
) {
    let column = widths.len();
    let mut start = from;
    let mut this = from;
    while this < to {
        if column + 1 >= lines[this].len() {
            this += 1;
            continue;
        }
        write_lines(lines, start, this, widths, out);
        start = this;
        let mut width = min_width;
        while this < to && column + 1 < lines[this].len() {
            width = width.max(lines[this][column].chars().count() + padding);
            this += 1;
        }
        widths.push(width);
        format(lines, start, this, widths, min_width, padding, out);
        widths.pop();
        start = this;
    }
    write_lines(lines, start, to, widths, out);
}

/// `Writer.writeLines`: each cell padded to its column's width, the last as it is.
fn write_lines(lines: &[Vec<&str>], from: usize, to: usize, widths: &[usize], out: &mut String) {
    for line in &lines[from..to] {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if j + 1 < line.len() && j < widths.len() {
                let pad = widths[j].saturating_sub(cell.chars().count());
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod go_tests {
    use super::go_tabwriter;

    /// A line without a tab ends the blocks: `Containers:` splits the
    /// header's block from the containers' (trace 006's describe).
    #[test]
    fn blocks_end_at_lines_without_the_column() {
        let text = "Name:\tweb\nStart Time:\tThu\nLabels:\tapp=nginx\n\tpod-template-hash=67d\nContainers:\n  nginx:\n    Image:\tnginx\n    Restart Count:\t0\n";
        assert_eq!(
            go_tabwriter(text, 0, 2),
            "Name:        web\nStart Time:  Thu\nLabels:      app=nginx\n             pod-template-hash=67d\nContainers:\n  nginx:\n    Image:          nginx\n    Restart Count:  0\n"
        );
    }
}
