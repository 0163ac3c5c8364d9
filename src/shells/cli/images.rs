//! Where `read_image("NAME")` finds files on the command line: NAME relative to the script's
//! folder, then in the app's sample images (`www/samples/` of the working directory, then of
//! the source tree this binary was built from). A file is read and decoded when the script
//! first asks for it, and kept for the rest of the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::core::image::{decode, ImageEntry, ImageSource};

/// Image files found by folder lookup (see the module's note).
pub struct FolderImages {
    folders: Vec<PathBuf>,
    read: HashMap<String, Option<ImageEntry>>,
}

impl FolderImages {
    /// The lookup for a script at `script` (its folder first, then the samples).
    pub fn for_script(script: &Path) -> FolderImages {
        let own = script.parent().map(Path::to_path_buf).unwrap_or_default();
        FolderImages {
            folders: vec![
                own,
                PathBuf::from("www/samples"),
                Path::new(env!("CARGO_MANIFEST_DIR")).join("www/samples"),
            ],
            read: HashMap::new(),
        }
    }
}

impl ImageSource for FolderImages {
    fn image(&mut self, name: &str) -> Option<ImageEntry> {
        if let Some(entry) = self.read.get(name) {
            return entry.clone();
        }
        let entry = if name.is_empty() {
            None
        } else {
            self.folders
                .iter()
                .map(|folder| folder.join(name))
                .find(|path| path.is_file())
                .and_then(|path| std::fs::read(path).ok())
                .map(|bytes| decode(&bytes).map(Rc::new))
        };
        self.read.insert(name.to_string(), entry.clone());
        entry
    }
}
