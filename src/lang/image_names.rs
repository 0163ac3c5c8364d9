//! The image files a script names, so that a shell can fetch them before the run.

use crate::lang::lexer::{logical_lines, TokenKind};

/// The image file names a script mentions: every string literal (as the script's lexer reads
/// it) that ends in `.png`, `.jpg`, `.jpeg`, `.gif` or `.webp`. The web app fetches these
/// before the run (a name held in a variable is found too, since its literal is in the text).
pub fn names_in_script(source: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let literals = logical_lines(source, true)
        .into_iter()
        .flatten()
        .flat_map(|line| line.tokens)
        .filter_map(|token| match token.kind {
            TokenKind::Str(text) => Some(text),
            _ => None,
        });
    for literal in literals {
        let lower = literal.to_ascii_lowercase();
        let is_image = [".png", ".jpg", ".jpeg", ".gif", ".webp"]
            .iter()
            .any(|ext| lower.ends_with(ext));
        if is_image && !names.contains(&literal) {
            names.push(literal);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_names_of_a_script_are_its_image_literals() {
        let script = "from torchvision.io import read_image\n\
                      img = read_image(\"astronaut.png\")\n\
                      name = 'Cat.JPG'\n\
                      other = read_image(name)\n\
                      again = read_image(\"astronaut.png\")\n\
                      print(\"not an image\")\n";
        assert_eq!(names_in_script(script), ["astronaut.png", "Cat.JPG"]);
        assert!(names_in_script("x = (").is_empty());
    }
}
