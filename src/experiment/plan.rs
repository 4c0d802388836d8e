//! Plan documents and experiment ids: one way to name an experiment and
//! to keep its plan in the store.
//!
//! A designed experiment is resumable and auditable only if its plan (the
//! seeded order, how far it got) is stored beside its runs, under the id
//! its runs' [`Tag`](crate::store::Tag) carries.  Matrix, campaign, vm and
//! bisect each saved their plan and made their ids their own way; they
//! all come here now.  Two processes never drive one plan: that is
//! [`super::lock`]'s job, taken before a plan is loaded for driving.

use crate::store::{Kind, Store};
use anyhow::{Context, Result};
use serde::{de::DeserializeOwned, Serialize};

/// A fresh id for an experiment of `kind`: a prefix that says the kind and
/// random hex (`m3f…` a matrix, `vm…`, `b…` a bisection, `decide-…`).
/// A campaign is named by its user and gets none.
pub fn new_id(kind: Kind) -> String {
    let (prefix, digits) = match kind {
        Kind::Matrix => ("m", 12),
        Kind::Vm => ("vm", 12),
        Kind::Bisect => ("b", 10),
        Kind::Decide => ("decide-", 8),
        Kind::Campaign => ("c", 12),
        Kind::Lava => ("l", 12),
        Kind::Follow => ("f", 12),
    };
    format!("{prefix}{}", &crate::sys::proc::random_hex128()[..digits])
}

/// Store (or replace) the plan document of experiment `kind` `id`.
pub fn save<T: Serialize + ?Sized>(
    store: &mut dyn Store,
    kind: Kind,
    id: &str,
    doc: &T,
) -> Result<()> {
    store.put_document(kind.as_str(), id, &serde_json::to_string(doc)?)
}

/// Is there a plan of experiment `kind` `id`?
pub fn exists(store: &dyn Store, kind: Kind, id: &str) -> Result<bool> {
    Ok(store.get_document(kind.as_str(), id)?.is_some())
}

/// The plan of experiment `kind` `id`: `None` when there is none, an error
/// that names it when it does not read.
pub fn load<T: DeserializeOwned>(store: &dyn Store, kind: Kind, id: &str) -> Result<Option<T>> {
    let Some(body) = store.get_document(kind.as_str(), id)? else {
        return Ok(None);
    };
    serde_json::from_str(&body)
        .map(Some)
        .with_context(|| format!("{} {id}: the stored plan is damaged", kind.as_str()))
}

/// Every plan of `kind`, by id, each read or not.
pub fn list<T: DeserializeOwned>(
    store: &dyn Store,
    kind: Kind,
) -> Result<Vec<(String, std::result::Result<T, serde_json::Error>)>> {
    Ok(store
        .list_documents(kind.as_str())?
        .into_iter()
        .map(|(id, body)| {
            let doc = serde_json::from_str(&body);
            (id, doc)
        })
        .collect())
}

/// The label of the first arm's A/A twin (`vm --aa`, `campaign init
/// --aa`, `lava job --aa`): the same kernel again, the noise floor.
pub fn aa_label(label: &str) -> String {
    format!("{label}/aa")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_saved_loaded_and_listed_by_kind_and_ids_say_their_kind() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = crate::store::SqliteStore::open(
            &dir.path().join("r.db"),
            crate::store::Access::ReadWrite,
        )
        .unwrap();
        let id = new_id(Kind::Matrix);
        assert!(id.starts_with('m') && id.len() == 13);
        assert!(new_id(Kind::Vm).starts_with("vm"));
        assert_ne!(new_id(Kind::Bisect), new_id(Kind::Bisect));
        assert!(!exists(&s, Kind::Matrix, &id).unwrap());
        save(&mut s, Kind::Matrix, &id, &serde_json::json!({"rounds": 3})).unwrap();
        assert!(exists(&s, Kind::Matrix, &id).unwrap());
        assert!(!exists(&s, Kind::Vm, &id).unwrap());
        let v: serde_json::Value = load(&s, Kind::Matrix, &id).unwrap().unwrap();
        assert_eq!(v["rounds"], 3);
        s.put_document("matrix", "bad", "{").unwrap();
        let e = load::<serde_json::Value>(&s, Kind::Matrix, "bad").unwrap_err();
        assert!(format!("{e:#}").contains("matrix bad: the stored plan is damaged"));
        let all = list::<serde_json::Value>(&s, Kind::Matrix).unwrap();
        assert_eq!(all.len(), 2);
        assert!(all.iter().any(|(i, d)| i == "bad" && d.is_err()));
    }
}
